package offline

import (
	"fmt"
	"unicode"

	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/textmatch"
	"github.com/checkup-dev/checkup/workers/transcript"
)

// Thresholds of the repetition rules. Similarity is the Jaccard similarity of rune
// bigrams (textmatch.Similarity), which works on Chinese as well as English. Short
// messages ("Thank you!") repeat naturally and are not compared; length is measured in
// textWeight, where a CJK character counts as two.
const (
	repeatMinWeight      = 40   // assistant messages shorter than this are not compared
	repeatSimilarity     = 0.85 // near-identical assistant messages
	userRepeatMinWeight  = 20
	userRepeatSimilarity = 0.7
)

// repeatedMessages reports an assistant message in words that is near-identical to an
// earlier one: the agent is stuck in a loop. A message that states other figures than
// the earlier one (a price, a date, a count) is not a repeat: it corrects or updates it.
func (a *Analyzer) repeatedMessages(v *view) []analyzer.Finding {
	earlier, later, sim := v.similarPair(transcript.RoleAssistant, repeatMinWeight, repeatSimilarity)
	if earlier != 0 && !sameFigures(v.fold(earlier).Text, v.fold(later).Text) {
		return nil
	}
	if earlier == 0 {
		return nil
	}
	desc := fmt.Sprintf("The agent's message at turn %d repeats its message at turn %d almost word for word (%.0f%% similar).",
		later, earlier, sim*100)
	return []analyzer.Finding{ruleRepeatedMessage.finding(desc, 0, v.quoteTurn(later), v.quoteTurn(earlier))}
}

// userRepeats reports a user who has to say the same thing twice, or says they are
// repeating or correcting themselves ("as I said", "there's some confusion", "我已经说过").
func (a *Analyzer) userRepeats(v *view) []analyzer.Finding {
	for turn := 1; turn <= len(v.conv.Messages); turn++ {
		if v.role(turn) != transcript.RoleUser {
			continue
		}
		if m, ok := a.m.restate.Find(v.fold(turn)); ok {
			desc := fmt.Sprintf("At turn %d the user restates or corrects their request: %s.", turn, v.quotedAt(turn, v.quoteMatch(turn, m).Quote))
			return []analyzer.Finding{ruleUserRepeats.finding(desc, 0, v.quoteMatch(turn, m))}
		}
	}
	earlier, later, sim := v.similarPair(transcript.RoleUser, userRepeatMinWeight, userRepeatSimilarity)
	if earlier == 0 {
		return nil
	}
	desc := fmt.Sprintf("The user's message at turn %d repeats their message at turn %d (%.0f%% similar).", later, earlier, sim*100)
	return []analyzer.Finding{ruleUserRepeats.finding(desc, 0, v.quoteTurn(later), v.quoteTurn(earlier))}
}

// similarPair finds the first message of role (in words, of at least minWeight) that is
// at least threshold similar to an earlier one of the same role, once per view: two
// rules ask the same question. Messages whose lengths differ by more than the threshold
// allows are never near-identical, so only pairs of comparable length have their bigram
// sets built and compared.
func (v *view) similarPair(role transcript.Role, minWeight int, threshold float64) (earlier, later int, sim float64) {
	q := pairQuestion{role, minWeight, threshold}
	a, ok := v.pairs[q]
	if !ok {
		a.earlier, a.later, a.sim = v.findSimilarPair(role, minWeight, threshold)
		if v.pairs == nil {
			v.pairs = map[pairQuestion]pairAnswer{}
		}
		v.pairs[q] = a
	}
	return a.earlier, a.later, a.sim
}

// pairQuestion and pairAnswer are similarPair's arguments and results.
type (
	pairQuestion struct {
		role      transcript.Role
		minWeight int
		threshold float64
	}
	pairAnswer struct {
		earlier, later int
		sim            float64
	}
)

// findSimilarPair is similarPair's search, over the messages of role in order.
func (v *view) findSimilarPair(role transcript.Role, minWeight int, threshold float64) (earlier, later int, sim float64) {
	type seen struct {
		turn, runes int
		sh          textmatch.ShingleSet // built on first comparison
	}
	var prev []*seen
	for turn := 1; turn <= len(v.conv.Messages); turn++ {
		if v.role(turn) != role {
			continue
		}
		text := v.fold(turn).Text
		weight, runes := textWeight(text)
		if weight < minWeight {
			continue
		}
		cur := &seen{turn: turn, runes: runes}
		for _, p := range prev {
			if float64(min(p.runes, cur.runes)) < threshold*float64(max(p.runes, cur.runes)) {
				continue
			}
			if p.sh == nil {
				p.sh = textmatch.FoldedShingles(v.fold(p.turn).Text, p.runes)
			}
			if cur.sh == nil {
				cur.sh = textmatch.FoldedShingles(text, cur.runes)
			}
			if s, ok := p.sh.JaccardAtLeast(cur.sh, threshold); ok {
				return p.turn, turn, s
			}
		}
		prev = append(prev, cur)
	}
	return 0, 0, 0
}

// textWeight is the length of s with CJK characters counted twice (one Chinese
// character says about as much as two Latin letters and a space), and its length in
// runes, counted in the same pass.
func textWeight(s string) (weight, runes int) {
	for _, r := range s {
		runes++
		if r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			weight++
		}
	}
	return weight + runes, runes
}

// sameFigures reports whether a and b state the same runs of digits, in the same order.
func sameFigures(a, b string) bool {
	next := func(s string, i int) (string, int) {
		for i < len(s) && (s[i] < '0' || s[i] > '9') {
			i++
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return s[i:j], j
	}
	for i, j := 0, 0; ; {
		var x, y string
		x, i = next(a, i)
		y, j = next(b, j)
		if x != y {
			return false
		}
		if x == "" {
			return true
		}
	}
}
