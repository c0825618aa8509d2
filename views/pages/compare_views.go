package pages

import (
	"time"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/report/compare"
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
func (o CompareOption) Label(l *locale.Localizer) string {
	s := o.Title + " · " + l.Time(o.CreatedAt) + " · " + l.N("count.conversations", o.Conversations)
	switch {
	case o.Rerun:
		s += " · " + l.T("compare.its_rerun")
	case o.Original:
		s += " · " + l.T("compare.its_original")
	}
	if o.Tell {
		s += " · " + o.ID[:min(8, len(o.ID))]
	}
	return s
}

// TellApart sets Tell on the options whose labels would read the same.
func TellApart(l *locale.Localizer, options []CompareOption) {
	seen := map[string]int{}
	for _, o := range options {
		seen[o.Label(l)]++
	}
	for i := range options {
		if seen[options[i].Label(l)] > 1 {
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
func compareGroups(l *locale.Localizer, options []CompareOption) []compareGroup {
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
			add("", l.T("compare.group_this_agent"), o)
		}
	}
	for _, o := range options {
		switch {
		case o.SameAgent:
		case o.Agent == "":
			add("\x00none", l.T("compare.group_no_agent"), o)
		default:
			add("agent:"+o.Agent, l.T("compare.group_agent", "Agent", o.Agent), o)
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
func changeHelp(l *locale.Localizer, c compare.Change) string {
	if s, ok := l.Lookup("change_help." + string(c)); ok {
		return s
	}
	return l.T("change_help.same")
}

// sideOf is one run's side of a cluster in the table, saying when that run held the
// issue as expected behavior.
func sideOf(l *locale.Localizer, cl compare.Cluster, baseline bool) string {
	s, expected := cl.Current, cl.Change == compare.NowExpected
	if baseline {
		s, expected = cl.Baseline, cl.Change == compare.NowIssue
	}
	if expected {
		return l.T("compare.as_expected", "Side", sideText(l, s))
	}
	return sideText(l, s)
}

func sideText(l *locale.Localizer, s compare.Side) string {
	if s.Conversations == 0 {
		return "—"
	}
	return l.T("compare.side", "N", s.Conversations, "Share", l.Percent(s.Share))
}

func analyzerName(l *locale.Localizer, r compare.Run) string {
	switch {
	case r.Analyzer == "offline":
		return l.T("compare.offline_rules")
	case r.Model != "":
		return l.T("compare.model", "Model", r.Model)
	}
	return r.Analyzer
}

func labelText(l *locale.Localizer, lb report.Labelled) string {
	if !lb.Any() {
		return l.T("compare.no_labels")
	}
	return l.Num(lb.Failed) + " / " + l.Num(lb.Succeeded)
}

func rateText(l *locale.Localizer, r *float64) string {
	if r == nil {
		return "—"
	}
	return l.Percent(*r)
}

func driverText(l *locale.Localizer, d *report.Driver) string {
	if d == nil {
		return l.T("compare.not_a_driver")
	}
	return l.T("compare.driver", "With", l.Percent(d.RateWith), "Without", l.Percent(d.RateWithout), "Lift", report.Lift(d.Lift))
}
