// Package compare compares two diagnoses of an agent, a baseline and a current run:
// their issue clusters matched across the runs, each with its conversations and share
// in both, a two-proportion test of the difference and what changed, beside the
// populations, outcome labels and failure drivers of both runs. It is pure: the
// compare page, compare.json and any check that fails on a regression compute the
// same Comparison from the same two reports. docs/compare-json.md describes it.
package compare

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/workers/stats"
)

// Significance is the p-value below which a cluster's change of share is called
// better or worse rather than the same.
const Significance = 0.05

// Change is what happened to an issue cluster from the baseline to the current run.
type Change string

// The changes, in the order the comparison lists them: regressions first, and last
// the issues whose standing, not their share, changed: the owner's mark or rule, or
// the policy, made them expected behaviour in one run and an issue in the other.
const (
	Worse       Change = "worse"        // in both runs, a significantly larger share now
	New         Change = "new"          // only in the current run
	Resolved    Change = "resolved"     // only in the baseline
	Better      Change = "better"       // in both runs, a significantly smaller share now
	Same        Change = "same"         // in both runs, no significant difference
	NowIssue    Change = "now_issue"    // expected behaviour in the baseline, an issue now
	NowExpected Change = "now_expected" // an issue in the baseline, expected behaviour now
)

// Changes are the changes in the order the comparison lists them.
var Changes = []Change{Worse, New, Resolved, Better, Same, NowIssue, NowExpected}

func (c Change) order() int { return slices.Index(Changes, c) }

// Comparison is compare.json: the two runs and their clusters side by side.
type Comparison struct {
	Baseline Run       `json:"baseline"`
	Current  Run       `json:"current"`
	Clusters []Cluster `json:"clusters"`
}

// Run is one diagnosis of a comparison: what it is, what it analyzed, its outcome
// labels and its failure drivers.
type Run struct {
	ID         string           `json:"id"`
	Title      string           `json:"title"`
	Status     taskstate.Status `json:"status"`
	CreatedAt  time.Time        `json:"created_at"`
	FinishedAt *time.Time       `json:"finished_at"`
	RerunOf    string           `json:"rerun_of"`
	// Agent is the name of the owner's agent the run belongs to; "" for none.
	Agent      string            `json:"agent"`
	Analyzer   string            `json:"analyzer"`
	Model      string            `json:"model"`
	Population report.Population `json:"population"`
	// FailureRate is the share of failed conversations among the labeled ones; null
	// without labels.
	FailureRate *float64        `json:"failure_rate"`
	Drivers     []report.Driver `json:"drivers"`
}

// Cluster is one issue as both runs saw it.
type Cluster struct {
	Type     string `json:"type"`
	Category string `json:"category"`
	Title    string `json:"title"` // the current run's title; the baseline's when resolved
	// TitleText is Title as a catalog message, where its findings keep one (TitleIn);
	// a pointer, so a Cluster stays comparable.
	TitleText *locale.Text `json:"-"`
	Baseline  Side         `json:"baseline"`
	Current   Side         `json:"current"`
	Change    Change       `json:"change"`
	PValue    float64      `json:"p_value"`
}

// Side is a cluster in one run: the conversations it covers and their share of the
// run's analyzed conversations; zero when the run does not have it.
type Side struct {
	Conversations int     `json:"conversations"`
	Share         float64 `json:"share"`
}

// Compare compares current with baseline. Clusters match when they share type and
// category and their titles name the same issue (cluster.TitleMatch); each is matched
// at most once, the most alike pairs first. Expected behavior is not compared: a
// cluster expected in the run that has it, and in the other too if both have it, is
// left out. One expected in one run and an issue in the other is listed as such
// (NowIssue, NowExpected), with both runs' conversations, so neither run's column
// shows what that run held as expected behavior as if it were its issue. The p-value
// tests the two shares (stats.TwoProportions); better and worse need p < Significance.
func Compare(baseline, current report.Report) Comparison {
	out := Comparison{Baseline: run(baseline), Current: run(current), Clusters: []Cluster{}}
	nb, nc := baseline.Population.Analysed, current.Population.Analysed
	for _, p := range match(baseline.Clusters, current.Clusters) {
		b, c := p.baseline, p.current
		if (b == nil || b.Expected) && (c == nil || c.Expected) {
			continue
		}
		var cl Cluster
		if c != nil {
			cl = Cluster{Type: c.Type, Category: c.Category, Title: c.Title, TitleText: &c.TitleText, Current: side(c.Conversations, nc)}
		} else {
			cl = Cluster{Type: b.Type, Category: b.Category, Title: b.Title, TitleText: &b.TitleText}
		}
		if b != nil {
			cl.Baseline = side(b.Conversations, nb)
		}
		cl.PValue = stats.TwoProportions(cl.Baseline.Conversations, nb, cl.Current.Conversations, nc)
		cl.Change = change(b, c, cl)
		out.Clusters = append(out.Clusters, cl)
	}
	slices.SortStableFunc(out.Clusters, func(x, y Cluster) int {
		return cmp.Or(
			cmp.Compare(x.Change.order(), y.Change.order()),
			cmp.Compare(y.Current.Conversations, x.Current.Conversations),
			cmp.Compare(y.Baseline.Conversations, x.Baseline.Conversations),
			cmp.Compare(x.Type, y.Type), cmp.Compare(x.Category, y.Category), cmp.Compare(x.Title, y.Title),
		)
	})
	return out
}

func change(b, c *report.Cluster, cl Cluster) Change {
	switch {
	case b == nil:
		return New
	case c == nil:
		return Resolved
	case b.Expected:
		return NowIssue
	case c.Expected:
		return NowExpected
	case cl.PValue >= Significance:
		return Same
	case cl.Current.Share < cl.Baseline.Share:
		return Better
	case cl.Current.Share > cl.Baseline.Share:
		return Worse
	}
	return Same
}

func side(conversations, analyzed int) Side {
	s := Side{Conversations: conversations}
	if analyzed > 0 {
		s.Share = round4(float64(conversations) / float64(analyzed))
	}
	return s
}

func run(r report.Report) Run {
	t := r.Task
	out := Run{
		ID: t.ID, Title: t.Title, Status: t.Status, CreatedAt: t.CreatedAt, FinishedAt: t.FinishedAt, RerunOf: t.RerunOf,
		Agent: t.Agent, Analyzer: r.Analysis.Analyzer, Model: r.Analysis.Model, Population: r.Population, Drivers: r.Drivers,
	}
	if out.Drivers == nil {
		out.Drivers = []report.Driver{}
	}
	if l := r.Population.Labelled; l.Any() {
		rate := round4(float64(l.Failed) / float64(l.Failed+l.Succeeded))
		out.FailureRate = &rate
	}
	return out
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// TitleIn is the issue's title in l's language.
func (c Cluster) TitleIn(l *locale.Localizer) string {
	if c.TitleText == nil {
		return c.Title
	}
	return report.Cluster{Title: c.Title, TitleText: *c.TitleText}.TitleIn(l)
}
