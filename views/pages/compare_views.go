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
	return s
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
// first run of another title (another agent) as the baseline.
func choosePlaceholder(options []CompareOption) bool {
	for _, o := range options {
		if o.Selected {
			return false
		}
	}
	return !sameTitle(options)
}

func sameTitle(options []CompareOption) bool {
	for _, o := range options {
		if o.SameTitle {
			return true
		}
	}
	return false
}

func otherTitles(options []CompareOption) bool {
	for _, o := range options {
		if !o.SameTitle {
			return true
		}
	}
	return false
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
