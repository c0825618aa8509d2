package detector

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// featureSet is which kinds of feature a model reads. Every model reads the words (the
// single words of the user's and the agent's turns, Chinese by characters); the rest
// are optional, because on a few dozen labelled conversations more features can
// overfit the scenarios they came from.
type featureSet struct {
	Pairs    bool // adjacent word pairs (Chinese: adjacent characters)
	Tools    bool // the tools called and the tools that returned errors
	Counts   bool // the conversation's sizes
	Findings bool // the finding categories and the analyzer's failure score
}

// variants are the feature sets Train chooses between by grouped cross-validation,
// the simplest first: a tie goes to the earlier one. They are few on purpose — picking
// the best of many cross-validated figures flatters the best — and span what matters:
// the words alone, then with the tools and sizes, then with the findings, with and
// without the pairs.
func variants() []featureSet {
	return []featureSet{
		{},
		{Tools: true, Counts: true},
		{Tools: true, Counts: true, Findings: true},
		{Pairs: true, Tools: true, Counts: true},
		{Pairs: true, Tools: true, Counts: true, Findings: true},
	}
}

// The kinds of feature, as a model's stored form and its summary name them.
const (
	kindWords    = "words"
	kindPairs    = "pairs"
	kindTools    = "tools"
	kindCounts   = "counts"
	kindFindings = "findings"
)

// names are the kinds of feature s reads, in a fixed order.
func (s featureSet) names() []string {
	out := []string{kindWords}
	for _, k := range []struct {
		on   bool
		name string
	}{{s.Pairs, kindPairs}, {s.Tools, kindTools}, {s.Counts, kindCounts}, {s.Findings, kindFindings}} {
		if k.on {
			out = append(out, k.name)
		}
	}
	return out
}

// parseFeatureSet reads names back; they must include the words and name each kind at
// most once.
func parseFeatureSet(names []string) (featureSet, error) {
	var s featureSet
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return s, fmt.Errorf("detector: features: %q twice", n)
		}
		seen[n] = true
		switch n {
		case kindWords:
		case kindPairs:
			s.Pairs = true
		case kindTools:
			s.Tools = true
		case kindCounts:
			s.Counts = true
		case kindFindings:
			s.Findings = true
		default:
			return s, fmt.Errorf("detector: features: unknown kind %q", n)
		}
	}
	if !seen[kindWords] {
		return s, fmt.Errorf("detector: features: %v without %q", names, kindWords)
	}
	return s, nil
}

// readsTerm says whether s reads the term of column block.
func (s featureSet) readsTerm(term string, block uint8) bool {
	switch block {
	case userBlock, agentBlock:
		return s.Pairs || !isPair(term)
	case toolsBlock:
		return s.Tools
	}
	return s.Findings
}

// readsDense says whether s reads dense feature k.
func (s featureSet) readsDense(k int) bool {
	if k == analyzerScore {
		return s.Findings
	}
	return s.Counts
}

// isPair says whether a user's or agent's term is a pair: two words with a space
// between them, or two CJK characters (a single word is never one CJK character next
// to another letter).
func isPair(term string) bool {
	_, body, _ := strings.Cut(term, ":")
	if strings.Contains(body, " ") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(body)
	return isCJK(r) && utf8.RuneCountInString(body) == 2
}
