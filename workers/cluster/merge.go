package cluster

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/checkup-dev/checkup/workers/textmatch"
)

// MergeThreshold is the Dice overlap of terms (2·shared / (terms of one + terms of the
// other), over stemmed content words, and character pairs in Chinese) at or above which
// two clusters of one group say the same thing: their titles, stripped of ids and
// numbers, or their first descriptions. "Booking 1001 changed without the agent
// confirming" and "Agent did not confirm booking 1002" share 4 of 5 and 4 terms (0.89);
// 用户要求转人工但未转接 and 用户多次要求转人工未被转接 share 6 of 10 and 12 pairs (0.55); "User
// asks for a human" and "User repeats the request" share 1 of 3 and 3 (0.33).
const MergeThreshold = 0.5

// minDescriptionTerms is how many terms a description needs before it is compared:
// shorter ones share terms by chance.
const minDescriptionTerms = 5

// mergeNearDuplicates merges, within each group, clusters whose titles or first
// descriptions are near-duplicates (MergeThreshold), so findings a model titled in many
// words make one cluster, not one per wording. Clusters are taken in the order they were
// made; each joins the earliest cluster before it that it is a near-duplicate of, so the
// result is deterministic. Candidates come from an index of each cluster's rarest terms,
// title and description apart (prefix filtering, as titleGroup does): two term sets
// with a Dice overlap of t or more share one of the first n − ⌈t·n/(2−t)⌉ + 1 terms of
// each in order of rarity, so no near-duplicate is missed and terms every finding uses
// ("error", "request") do not make each cluster a candidate of every other.
func mergeNearDuplicates(all []*building) []*building {
	type profile struct {
		title, desc       map[string]bool
		titleNeg, descNeg bool // negated: texts that differ in it say opposite things
	}
	profiles := make([]profile, len(all))
	titleDF, descDF := map[groupKey]map[string]int{}, map[groupKey]map[string]int{}
	count := func(dfs map[groupKey]map[string]int, key groupKey, terms map[string]bool) {
		df := dfs[key]
		if df == nil {
			df = map[string]int{}
			dfs[key] = df
		}
		for t := range terms {
			df[t]++
		}
	}
	for i, b := range all {
		profiles[i] = profile{title: signature(b.titleOrder[0]), desc: signature(b.desc),
			titleNeg: negated(b.titleOrder[0]), descNeg: negated(b.desc)}
		count(titleDF, b.key, profiles[i].title)
		if len(profiles[i].desc) >= minDescriptionTerms {
			count(descDF, b.key, profiles[i].desc)
		}
	}
	minOverlap := MergeThreshold / (2 - MergeThreshold) // of a set's own terms, for a Dice of MergeThreshold
	prefix := func(terms map[string]bool, df map[string]int) []string {
		sorted := make([]string, 0, len(terms))
		for t := range terms {
			sorted = append(sorted, t)
		}
		slices.SortFunc(sorted, func(a, b string) int { return cmp.Or(cmp.Compare(df[a], df[b]), cmp.Compare(a, b)) })
		return sorted[:prefixLen(len(sorted), minOverlap)]
	}
	root := make([]int, len(all))
	titleIndex := map[groupKey]map[string][]int{} // rare title term → the roots with it
	descIndex := map[groupKey]map[string][]int{}
	for i, b := range all {
		root[i] = i
		titles, descs := titleIndex[b.key], descIndex[b.key]
		if titles == nil {
			titles, descs = map[string][]int{}, map[string][]int{}
			titleIndex[b.key], descIndex[b.key] = titles, descs
		}
		p := profiles[i]
		titlePrefix := prefix(p.title, titleDF[b.key])
		var descPrefix []string
		if len(p.desc) >= minDescriptionTerms {
			descPrefix = prefix(p.desc, descDF[b.key])
		}
		candidates := map[int]bool{}
		for _, t := range titlePrefix {
			for _, j := range titles[t] {
				candidates[j] = true
			}
		}
		for _, t := range descPrefix {
			for _, j := range descs[t] {
				candidates[j] = true
			}
		}
		order := make([]int, 0, len(candidates))
		for j := range candidates {
			order = append(order, j)
		}
		slices.Sort(order)
		for _, j := range order {
			q := profiles[j]
			if p.titleNeg != q.titleNeg || p.descNeg != q.descNeg {
				continue // one says that something did not happen, the other that it did
			}
			if b.named && all[j].named {
				continue // two rules, however alike their words
			}
			if dice(p.title, q.title) >= MergeThreshold ||
				(len(p.desc) >= minDescriptionTerms && len(q.desc) >= minDescriptionTerms && dice(p.desc, q.desc) >= MergeThreshold) {
				root[i] = j
				break
			}
		}
		if root[i] != i {
			all[root[i]].absorb(b)
			continue
		}
		for _, t := range titlePrefix {
			titles[t] = append(titles[t], i)
		}
		for _, t := range descPrefix {
			descs[t] = append(descs[t], i)
		}
	}
	out := make([]*building, 0, len(all))
	for i, b := range all {
		if root[i] == i {
			out = append(out, b)
		}
	}
	return out
}

// signature is the set of stemmed content terms of s without the words that differ
// between conversations (ids, numbers and anything with a digit or an underscore) and
// the parties every finding speaks of ("agent", "user"), which tell no two problems
// apart.
func signature(s string) map[string]bool {
	terms := map[string]bool{}
	for _, t := range textmatch.Terms(s) {
		if textmatch.Stopword(t) || party(t) || strings.ContainsFunc(t, func(r rune) bool { return unicode.IsDigit(r) || r == '_' }) {
			continue
		}
		terms[textmatch.Stem(t)] = true
	}
	return terms
}

// party reports whether a term names a side of the conversation.
func party(t string) bool {
	switch t {
	case "agent", "agents", "user", "users", "assistant", "customer", "customers", "bot", "conversation":
		return true
	}
	return false
}

// dice is the Dice coefficient of two term sets: 2·|a∩b| / (|a|+|b|).
func dice(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for t := range a {
		if b[t] {
			inter++
		}
	}
	return 2 * float64(inter) / float64(len(a)+len(b))
}

// absorb adds o's findings to b, keeping its conversations in Seq order.
func (b *building) absorb(o *building) {
	for _, t := range o.titleOrder {
		if b.titles[t] == 0 {
			b.titleOrder = append(b.titleOrder, t)
		}
		b.titles[t] += o.titles[t]
	}
	b.findings += o.findings
	b.seqs = append(b.seqs, o.seqs...)
	slices.Sort(b.seqs)
	b.seqs = slices.Compact(b.seqs)
	b.severity += o.severity
	b.confidence += o.confidence
}

// negated reports whether s, outside what it quotes, says that something did not
// happen ("is not transferred", "never handed off", "without confirming", 未转接). Two
// texts that differ in it say opposite things however many words they share: "the
// user asks for a person, but the conversation is never handed off" is not "the agent
// hands the conversation to a person". A word counts whole: "no" in "no-show" or
// "no. 5" does not, nor 未 in 未来.
func negated(s string) bool {
	own := textmatch.Fold(unquoted(s))
	return negations.Contains(own) || negatingNo.MatchString(own.Text)
}

// negations are the words negated looks for. A phrase edge that is a letter matches
// only at a word boundary, so "'t" ends "don't"; 未 and 不 alone also begin words that
// are not negations (未来, 不同).
var negations = textmatch.NewPhraseSet("not", "never", "without", "cannot", "nor", "'t", "’t",
	"未被", "未能", "未经", "未转", "未处理", "未收到", "未完成", "并未", "没有", "没能", "没被", "无法", "不能", "不会", "不是", "不予", "不再", "拒绝")

// negatingNo is "no" as a word of its own, but for "no-show" and "no. 5".
var negatingNo = regexp.MustCompile(`(?:^|[^\pL\pN_])no(?:$|[^\pL\pN_.\-])`)

// unquoted is s without what it quotes (between “ and ”, 「 and 」, or a pair of
// straight double quotes): a description quotes the conversation, whose words are not
// its own. A quote left open (a stray mark, 5" screen) keeps s whole.
func unquoted(s string) string {
	var b strings.Builder
	depth, straight := 0, false
	for _, r := range s {
		switch {
		case r == '“' || r == '「':
			depth++
		case (r == '”' || r == '」') && depth > 0:
			depth--
		case r == '"' && depth == 0:
			straight = !straight
		case depth == 0 && !straight:
			b.WriteRune(r)
		}
	}
	if depth != 0 || straight {
		return s
	}
	return b.String()
}
