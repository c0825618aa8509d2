package pages

import (
	"fmt"

	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/views/components"
)

// actionsListed says how many ACTION Actions the page lists out of the ACTION issues,
// counted as shown: an issue marked expected leaves both, so the number is the real one.
// While the task runs there is nothing to count yet. Issues that rank among the
// Actions only since a mark (report.NoActionIssueSince) are counted apart: the listed
// ones are then not the most urgent, and a new run writes theirs, in place of the last
// listed ones where that would pass the cap (report.ActionIssuesNextRun).
func actionsListed(r report.Report) string {
	listed, open := actionCounts(r)
	if since := Waiting(r); since > 0 && r.Task.Status.Concluded() {
		verb := "are"
		if listed == 1 {
			verb = "is"
		}
		head := fmt.Sprintf("%s of %s %s listed", components.Count(listed), components.Count(open), verb)
		more := min(since, max(r.ActionIssuesNextRun-listed, 0))
		switch replaced := since - more; {
		case replaced == 0:
			return fmt.Sprintf("%s, and running the diagnosis again writes %s more", head, components.Count(since))
		case more == 0:
			return fmt.Sprintf("%s; running the diagnosis again writes %s, in place of %s", head, forWaiting(since), lastListed(replaced))
		default:
			return fmt.Sprintf("%s; running the diagnosis again writes %s: %s more, and %s in place of %s",
				head, forWaiting(since), components.Count(more), components.Count(replaced), lastListed(replaced))
		}
	}
	switch {
	case !r.Task.Terminal:
		return "the most urgent are listed when the diagnosis finishes"
	case !r.Task.Status.Concluded():
		return "none, since the diagnosis did not get that far"
	case open == 0:
		return "none was found"
	case listed >= open:
		return "every one found is listed"
	case listed == 1:
		return fmt.Sprintf("the most urgent of %s is listed", components.Count(open))
	}
	return fmt.Sprintf("the %s most urgent of %s are listed", components.Count(listed), components.Count(open))
}

// risksListed says that every RISK issue has its Action listed, but those that were
// expected when the Actions were written (report.NoActionIssueSince): a new run writes
// theirs.
func risksListed(r report.Report) string {
	switch waiting := r.WaitingIssues("RISK"); waiting {
	case 0:
		return "every one found is listed"
	case 1:
		return "every one found is listed but one, expected when the Actions were written: running the diagnosis again writes its Action"
	default:
		return fmt.Sprintf("every one found is listed but %s, expected when the Actions were written: running the diagnosis again writes theirs",
			components.Count(waiting))
	}
}

// forWaiting names the Actions a new run writes for the n issues that wait for one.
func forWaiting(n int) string {
	if n == 1 {
		return "an Action for the issue that ranks among them now"
	}
	return fmt.Sprintf("Actions for the %s issues that rank among them now", components.Count(n))
}

// lastListed names the n listed Actions a new run leaves out: the last ones.
func lastListed(n int) string {
	if n == 1 {
		return "the last one listed"
	}
	return fmt.Sprintf("the last %s listed", components.Count(n))
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
func actionsOrder(r report.Report) string {
	return "Each is ranked by what it is sure to explain: the failed conversations its issue accounts for beyond the upload's failure rate, at the lower end of what its conversations allow (from outcome labels or the agent's detector), else how many conversations it reaches and how severe it is, at least. So an issue seen in a few conversations never outranks a common one, and one seen in a single conversation is listed under “Seen once”, without an Action."
}

// issueCount says how many issues were found, and how many expected behaviours beside
// them, counted as the sections below and report.md count them.
func issueCount(r report.Report) string {
	issues, expected := r.IssueCounts()
	s := "from " + components.Plural(issues, "issue", "issues")
	if expected > 0 {
		s += ", besides " + components.Plural(expected, "expected behavior", "expected behaviors")
	}
	return s
}
