package pages

import (
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/report"
)

// actionsListed says how many ACTION Actions the page lists out of the ACTION issues,
// counted as shown: an issue marked expected leaves both, so the number is the real one.
// While the task runs there is nothing to count yet. Issues that rank among the
// Actions only since a mark (report.NoActionIssueSince) are counted apart: the listed
// ones are then not the most urgent, and a new run writes theirs, in place of the last
// listed ones where that would pass the cap (report.ActionIssuesNextRun).
func actionsListed(l *locale.Localizer, r report.Report) string {
	listed, open := actionCounts(r)
	if since := Waiting(r); since > 0 && r.Task.Status.Concluded() {
		head := l.N("listed.head", listed, "Open", open)
		more := min(since, max(r.ActionIssuesNextRun-listed, 0))
		switch replaced := since - more; {
		case replaced == 0:
			return l.T("listed.writes_more", "Head", head, "N", since)
		case more == 0:
			return l.T("listed.writes_in_place", "Head", head, "Waiting", l.N("listed.for_waiting", since), "Last", l.N("listed.last_listed", replaced))
		default:
			return l.T("listed.writes_both", "Head", head, "Waiting", l.N("listed.for_waiting", since), "More", more,
				"Replaced", replaced, "Last", l.N("listed.last_listed", replaced))
		}
	}
	switch {
	case !r.Task.Terminal:
		return l.T("listed.when_finished")
	case !r.Task.Status.Concluded():
		return l.T("listed.not_that_far")
	case open == 0:
		return l.T("listed.none_found")
	case listed >= open:
		return l.T("listed.every_one")
	}
	return l.N("listed.most_urgent", listed, "Open", open)
}

// risksListed says that every RISK issue has its Action listed, but those that were
// expected when the Actions were written (report.NoActionIssueSince): a new run writes
// theirs.
func risksListed(l *locale.Localizer, r report.Report) string {
	if waiting := r.WaitingIssues("RISK"); waiting > 0 {
		return l.N("listed.every_risk_but", waiting)
	}
	return l.T("listed.every_one")
}

// Waiting counts the ACTION issues that rank among the Actions now but did not when
// they were written: the next run writes theirs. (A RISK issue of that kind takes no
// ACTION issue's place.)
func Waiting(r report.Report) int { return r.WaitingIssues("ACTION") }

// actionCounts are the ACTION Actions the page lists and the ACTION issues that are
// not expected behaviour.
func actionCounts(r report.Report) (listed, open int) {
	for _, a := range r.Actions {
		if a.Type == "ACTION" {
			listed++
		}
	}
	for _, c := range r.Clusters {
		if c.Type == "ACTION" && !c.Expected {
			open++
		}
	}
	return listed, open
}

// actionsOrder says what the Actions are ranked by (cluster.SupportFormula; each card
// says what its rank rests on), and where the issues seen once went.
func actionsOrder(l *locale.Localizer) string { return l.T("order.ranked") }

// issueCount says how many issues were found, and how many expected behaviours beside
// them, counted as the sections below and report.md count them.
func issueCount(l *locale.Localizer, r report.Report) string {
	issues, expected := r.IssueCounts()
	s := l.N("summary.from_issues", issues)
	if expected > 0 {
		s += l.N("summary.besides_expected", expected)
	}
	return s
}
