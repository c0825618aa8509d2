package cluster

import (
	"slices"
	"strings"

	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// Who says a cluster is expected behaviour.
const (
	ExpectedByPolicy = "policy" // the agent's own policy calls for it, as its findings say
	ExpectedByOwner  = "owner"  // the task's owner marked it, or a rule of theirs covers it
)

// Rule is an owner's rule that clusters of one type and category about what Title says
// are expected behaviour — or, NotExpected, that they are not, even where the agent's
// policy seems to call for them: made when the owner marks a cluster, applied to their
// later runs as the clusters are built.
type Rule struct {
	Type        analyzer.FindingType
	Category    string
	Title       string
	Reason      string
	NotExpected bool
}

// NormalTitle is the form a rule is stored under, so that one issue worded in several
// ways keeps one rule: the terms the clusterer compares titles by (stemmed content
// words, without ids, numbers and the parties every finding speaks of), sorted and
// joined by spaces; the folded title when it has none of those.
func NormalTitle(title string) string {
	terms := make([]string, 0, 8)
	for t := range signature(title) {
		terms = append(terms, t)
	}
	if len(terms) == 0 {
		return textmatch.FoldString(strings.TrimSpace(title))
	}
	slices.Sort(terms)
	return strings.Join(terms, " ")
}

// Matches reports whether the rule covers cluster c: the same type and category, and
// titles that name the same issue, as two runs' clusters are matched (TitleMatch) —
// titles equal once normalised are.
func (r Rule) Matches(c Cluster) bool {
	if c.Type != r.Type || c.Category != r.Category {
		return false
	}
	_, alike := TitleMatch(r.Title, c.Title)
	return alike || NormalTitle(r.Title) == NormalTitle(c.Title)
}

// FindingsExpected reports whether the cluster's findings are themselves marked
// expected (the policy calls for them): what the findings are grouped and stored by.
// An owner's word, either way, leaves its findings as they were.
func (c Cluster) FindingsExpected() bool {
	return c.ExpectedBy == ExpectedByPolicy || c.PolicyOverruled
}

// Overrule makes a cluster the policy marks expected an issue, as its owner says, for
// reason: the policy sentence its findings were matched to does not make it expected.
func (c *Cluster) Overrule(reason string) {
	c.Expected, c.ExpectedBy, c.ExpectedReason, c.PolicyOverruled = false, "", reason, true
}

// ApplyRules gives every cluster the owner's word of the first of rules that covers
// it: a cluster that is an issue becomes expected behaviour by an expected rule, one the
// policy marks becomes an issue by a NotExpected rule, with the rule's reason.
func ApplyRules(clusters []Cluster, rules []Rule) {
	for i := range clusters {
		c := &clusters[i]
		if c.Expected && c.ExpectedBy != ExpectedByPolicy {
			continue
		}
		for _, r := range rules {
			if r.NotExpected != c.Expected || !r.Matches(*c) {
				continue
			}
			if r.NotExpected {
				c.Overrule(r.Reason)
			} else {
				c.Expected, c.ExpectedBy, c.ExpectedReason = true, ExpectedByOwner, r.Reason
			}
			break
		}
	}
}
