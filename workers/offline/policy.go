package offline

import (
	"crypto/sha256"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// policy is the agent's stated policy: the sentences of the conversation's system
// prompt, each with the terms it speaks of and the kinds of rule it states. It is what
// tells a refusal or a handoff the agent was told to make from one it was not.
type policy struct {
	rules []policyRule
	// df counts, per term, the rules that use it: a term most rules share ("user",
	// "order") says little about which rule a reply follows.
	df map[string]int
}

// policyRule is one sentence of the policy.
type policyRule struct {
	text  string
	terms map[string]bool
	kind  ruleKind
}

// ruleKind is what a policy sentence asks for; a sentence can ask for several things.
type ruleKind uint8

const (
	restricts     ruleKind = 1 << iota // something the agent must not do, or only under a condition
	transfers                          // when to hand the conversation to a person
	confirms                           // an explicit confirmation before acting
	authenticates                      // the user's identity is to be verified first
	identifies                         // speaks of verifying the user's identity, first or as a condition
)

// policyMarkers are the phrases that give a sentence its kinds, English and Chinese.
type policyMarkers struct {
	restricts, transfers, confirms textmatch.PhraseSet
	identity, first                textmatch.PhraseSet // together: authenticates
}

func newPolicyMarkers() policyMarkers {
	return policyMarkers{
		restricts: textmatch.NewPhraseSet(
			"cannot", "can not", "can't", "could not", "not allowed", "not permitted", "must not", "should not", "may not",
			"do not", "don't", "never", "only if", "only be", "can only", "at most", "no more than", "not eligible", "deny",
			"refuse", "decline", "is not possible", "are not", "is not", "not refundable", "not be",
			"不能", "不可", "不得", "禁止", "不允许", "只能", "仅限", "拒绝", "无法", "不支持", "不予",
		),
		transfers: textmatch.NewPhraseSet(
			"transfer", "human agent", "escalate", "hand off", "handoff", "live agent", "a person",
			"转人工", "人工客服", "转接", "人工服务",
		),
		confirms: textmatch.NewPhraseSet("confirmation", "confirm", "explicit", "确认"),
		identity: textmatch.NewPhraseSet("authenticate", "authenticated", "authentication", "verify the user",
			"verify their identity", "verify the identity", "user identity", "identity is verified", "identity has been verified",
			"身份验证", "验证身份", "核实身份", "核验身份"),
		first: textmatch.NewPhraseSet("first", "beginning", "before", "start of", "首先", "之前", "开始"),
	}
}

// maxPolicyRunes bounds how much of a system prompt is read as policy.
const maxPolicyRunes = 40_000

// policyCacheSize is how many distinct policies an analyzer keeps parsed. Most
// conversations of a task share one system prompt, so a handful serves a whole task.
const policyCacheSize = 32

// policyCache keeps parsed policies by the hash of their system prompts. Policies are
// read-only once parsed, so one can serve concurrent diagnoses.
type policyCache struct {
	mu      sync.Mutex
	parsed  map[[sha256.Size]byte]policy
	markers policyMarkers
}

func newPolicyCache() *policyCache {
	return &policyCache{parsed: map[[sha256.Size]byte]policy{}, markers: newPolicyMarkers()}
}

// policyOf returns the conversation's policy, parsing its system prompts on first sight.
func (c *policyCache) policyOf(conv transcript.Conversation) policy {
	h := sha256.New()
	for _, m := range conv.Messages {
		if m.Role == transcript.RoleSystem {
			h.Write([]byte(m.Content))
			h.Write([]byte{0})
		}
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	c.mu.Lock()
	p, ok := c.parsed[key]
	c.mu.Unlock()
	if ok {
		return p
	}
	p = c.markers.readPolicy(conv)
	c.mu.Lock()
	if len(c.parsed) >= policyCacheSize {
		clear(c.parsed)
	}
	c.parsed[key] = p
	c.mu.Unlock()
	return p
}

// readPolicy splits the conversation's system prompts into sentences: one per line, and
// within a line at sentence ends, with list markers dropped. Headings and fragments of
// fewer than four terms are not rules.
func (m policyMarkers) readPolicy(conv transcript.Conversation) policy {
	p := policy{df: map[string]int{}}
	read := 0
	for _, msg := range conv.Messages {
		if msg.Role != transcript.RoleSystem || read > maxPolicyRunes {
			continue
		}
		read += utf8.RuneCountInString(msg.Content)
		for _, line := range strings.Split(msg.Content, "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "#") {
				continue
			}
			line = strings.TrimLeft(line, "-*•·0123456789.) ")
			for _, sentence := range sentences(line) {
				p.add(m, sentence)
			}
		}
	}
	return p
}

func (p *policy) add(m policyMarkers, sentence string) {
	terms := contentTerms(sentence)
	if len(terms) < 4 {
		return
	}
	f := textmatch.Fold(sentence)
	var kind ruleKind
	if m.restricts.Contains(f) {
		kind |= restricts
	}
	if m.transfers.Contains(f) {
		kind |= transfers
	}
	if m.confirms.Contains(f) {
		kind |= confirms
	}
	if m.identity.Contains(f) {
		kind |= identifies
		if m.first.Contains(f) {
			kind |= authenticates
		}
	}
	p.rules = append(p.rules, policyRule{text: sentence, terms: terms, kind: kind})
	for t := range terms {
		p.df[t]++
	}
}

// sentences splits a line at sentence ends ("." "!" "?" followed by a space, and the
// Chinese stops), keeping each sentence's own punctuation.
func sentences(line string) []string {
	var out []string
	start := 0
	for i := 0; i < len(line); {
		end := sentenceEnd(line, i)
		if end <= i {
			break
		}
		if s := strings.TrimSpace(line[start:end]); s != "" {
			out = append(out, s)
		}
		start, i = end, end
	}
	if s := strings.TrimSpace(line[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// contentTerms is the set of stemmed terms of s that are neither function words nor the
// words that make a sentence a restriction ("cannot", "only"), which say that something
// is ruled out but not what.
func contentTerms(s string) map[string]bool {
	terms := map[string]bool{}
	for _, t := range textmatch.Terms(s) {
		if contentTerm(t) {
			terms[textmatch.Stem(t)] = true
		}
	}
	return terms
}

// contentTerm reports whether a folded term says what a sentence is about.
func contentTerm(t string) bool { return !textmatch.Stopword(t) && !restrictionWord(t) }

// restrictionWord reports whether a folded term only says what kind of rule a sentence
// is — that something is ruled out, or that the user is passed to a person — not what
// the rule is about.
func restrictionWord(t string) bool {
	switch t {
	case "cannot", "can", "t", "never", "only", "deny", "denied", "refuse", "decline", "allowed", "permitted",
		"unable", "unfortunately", "possible", "eligible", "sorry", "afraid", "policy",
		"transfer", "transferred", "human", "agent", "agents", "person", "escalate", "handoff", "hand", "live":
		return true
	}
	return false
}

// minSpecificTerms is how many terms a reply must share with a policy sentence, each used
// by few of the policy's sentences, for the reply to follow that sentence: one shared
// word is chance, two specific ones ("basic economy", "gift card") name the rule.
const minSpecificTerms = 2

// match returns the rule of the given kind that the texts speak of most specifically:
// the one sharing the most terms used by at most a quarter of the policy's sentences
// (and by at most three, in a short policy), with at least minSpecificTerms of them.
// The texts' terms are stemmed by stems, as contentTerms stems the policy's.
func (p policy) match(kind ruleKind, stems *textmatch.Stemmer, texts ...string) (policyRule, bool) {
	if len(p.rules) == 0 {
		return policyRule{}, false
	}
	said := map[string]bool{}
	for _, t := range texts {
		for term := range textmatch.EachTerm(t) {
			if contentTerm(term) {
				said[stems.Stem(term)] = true
			}
		}
	}
	specific := max(len(p.rules)/4, 3)
	best, bestShared := -1, 0
	for i, r := range p.rules {
		if r.kind&kind == 0 {
			continue
		}
		shared := 0
		for term := range r.terms {
			if said[term] && p.df[term] <= specific {
				shared++
			}
		}
		if shared > bestShared {
			best, bestShared = i, shared
		}
	}
	if best < 0 || bestShared < minSpecificTerms {
		return policyRule{}, false
	}
	return p.rules[best], true
}

// first returns the first rule of a kind, for a rule that applies whatever the request
// (when to hand over, whether to confirm).
func (p policy) first(kind ruleKind) (policyRule, bool) {
	for _, r := range p.rules {
		if r.kind&kind != 0 {
			return r, true
		}
	}
	return policyRule{}, false
}

// gate returns the sentence, besides first, that makes what a tool does wait for the
// user's identity: one speaking of the check that shares a term with the tool's name
// ("Once the user has been authenticated, you can provide … product information" for
// list_all_product_types). It is why acting before the check matters to the policy,
// when the act itself reads no one's account.
func (p policy) gate(first policyRule, tool string, stems *textmatch.Stemmer) (policyRule, bool) {
	named := map[string]bool{}
	for _, word := range nameWords(tool) {
		if contentTerm(word) {
			named[stems.Stem(word)] = true
		}
	}
	for _, r := range p.rules {
		if r.kind&identifies == 0 || r.text == first.text {
			continue
		}
		for term := range r.terms {
			if named[term] {
				return r, true
			}
		}
	}
	return policyRule{}, false
}
