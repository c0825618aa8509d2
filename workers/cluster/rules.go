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
// are expected behaviour: made when the owner marks a cluster, applied to their later
// runs as the clusters are built.
type Rule struct {
	Type     analyzer.FindingType
	Category string
	Title    string
	Reason   string
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
// An owner's mark leaves its findings as they were.
func (c Cluster) FindingsExpected() bool { return c.ExpectedBy == ExpectedByPolicy }

// ApplyRules marks expected behaviour every cluster one of rules covers, with the
// reason of the first that does. A cluster the policy marks already keeps that mark.
func ApplyRules(clusters []Cluster, rules []Rule) {
	for i := range clusters {
		c := &clusters[i]
		if c.Expected {
			continue
		}
		for _, r := range rules {
			if r.Matches(*c) {
				c.Expected, c.ExpectedBy, c.ExpectedReason = true, ExpectedByOwner, r.Reason
				break
			}
		}
	}
}
