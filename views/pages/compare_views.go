package pages

import (
	"time"

	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/report/compare"
	"github.com/checkup-dev/checkup/views/components"
)

// CompareOption is a diagnosis the baseline picker offers.
type CompareOption struct {
	ID            string
	Title         string
	CreatedAt     time.Time
	Conversations int
	SameTitle     bool // the same title as the task: most likely an earlier run of the same agent
	Rerun         bool // a re-run of the task: the same conversations
	Original      bool // the task the task re-ran: the same conversations
	Selected      bool
	// Agent is the name of the run's agent ("" for none); SameAgent says it is the
	// task's. The picker lists the task's agent's runs first, then each other agent's.
	Agent     string
	SameAgent bool
	// Tell is set on runs whose label would read the same as another's (same title,
	// minute and size): the id's start tells them apart.
	Tell bool
}

// Label is the option as the picker lists it.
func (o CompareOption) Label() string {
	s := o.Title + " · " + components.FormatTime(o.CreatedAt) + " · " + components.Plural(o.Conversations, "conversation", "conversations")
	switch {
	case o.Rerun:
		s += " · its re-run, same conversations"
	case o.Original:
		s += " · the run this one repeats, same conversations"
	}
	if o.Tell {
		s += " · " + o.ID[:min(8, len(o.ID))]
	}
	return s
}

// TellApart sets Tell on the options whose labels would read the same.
func TellApart(options []CompareOption) {
	seen := map[string]int{}
	for _, o := range options {
		seen[o.Label()]++
	}
	for i := range options {
		if seen[options[i].Label()] > 1 {
			options[i].Tell = true
		}
	}
}

// compareGroup is the runs of one agent in the picker.
type compareGroup struct {
	Label   string
	Options []CompareOption
}

// compareGroups groups the options by agent, the task's own agent first (its runs of
// the same title first, as the options come), then the other agents in the order
// their first run comes.
func compareGroups(options []CompareOption) []compareGroup {
	var groups []compareGroup
	at := map[string]int{}
	add := func(key, label string, o CompareOption) {
		i, ok := at[key]
		if !ok {
			i = len(groups)
			at[key] = i
			groups = append(groups, compareGroup{Label: label})
		}
		groups[i].Options = append(groups[i].Options, o)
	}
	for _, o := range options {
		if o.SameAgent {
			add("", "Runs of this agent", o)
		}
	}
	for _, o := range options {
		switch {
		case o.SameAgent:
		case o.Agent == "":
			add("\x00none", "Runs without an agent", o)
		default:
			add("agent:"+o.Agent, "Runs of the agent "+o.Agent, o)
		}
	}
	return groups
}

// CompareView is the compare page: the comparison and the picker to change its
// baseline.
type CompareView struct {
	Comparison compare.Comparison
	Options    []CompareOption
	// DifferentAgents is set when the runs' system prompts have little in common
	// (compare.DifferentAgents): the comparison may be of two agents, not two versions.
	DifferentAgents bool
}

// choosePlaceholder reports whether the picker opens on "Choose a run": nothing is
// selected and no run has the same title, so the browser would otherwise pre-select the
// first run of another title (likely another agent) as the baseline.
func choosePlaceholder(options []CompareOption) bool {
	for _, o := range options {
		if o.Selected {
			return false
		}
	}
	for _, o := range options {
		if o.SameTitle {
			return false
		}
	}
	return true
}

// changeHelp says what a change means, under its count.
func changeHelp(c compare.Change) string {
	switch c {
	case compare.Worse:
		return "issues in a significantly larger share"
	case compare.New:
		return "issues only this run has"
	case compare.Resolved:
		return "issues only the baseline had"
	case compare.Better:
		return "issues in a significantly smaller share"
	case compare.NowIssue:
		return "expected behavior in the baseline, issues here"
	case compare.NowExpected:
		return "issues in the baseline, expected behavior here"
	}
	return "issues without a significant change"
}

// sideOf is one run's side of a cluster in the table, saying when that run held the
// issue as expected behavior.
func sideOf(cl compare.Cluster, baseline bool) string {
	s, expected := cl.Current, cl.Change == compare.NowExpected
	if baseline {
		s, expected = cl.Baseline, cl.Change == compare.NowIssue
	}
	if expected {
		return sideText(s) + ", as expected behavior"
	}
	return sideText(s)
}

func sideText(s compare.Side) string {
	if s.Conversations == 0 {
		return "—"
	}
	return components.Count(s.Conversations) + " (" + report.Percent(s.Share) + ")"
}

func analyzerName(r compare.Run) string {
	switch {
	case r.Analyzer == "offline":
		return "offline rules"
	case r.Model != "":
		return "model " + r.Model
	}
	return r.Analyzer
}

func labelText(l report.Labelled) string {
	if !l.Any() {
		return "no labels"
	}
	return components.Count(l.Failed) + " / " + components.Count(l.Succeeded)
}

func rateText(r *float64) string {
	if r == nil {
		return "—"
	}
	return report.Percent(*r)
}

func driverText(d *report.Driver) string {
	if d == nil {
		return "not a driver"
	}
	return report.Percent(d.RateWith) + " / " + report.Percent(d.RateWithout) + " (lift " + report.Lift(d.Lift) + ")"
}
