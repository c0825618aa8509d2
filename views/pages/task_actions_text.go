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

// actionsOrder says what the Actions are ranked by: with outcome labels, the ACTION
// Actions by the failures their issue explains (cluster.SelectCandidates), else every
// Action by its priority score. Before the issues are grouped, the upload's labels
// say which it will be, so the sentence does not change when the diagnosis finishes.
func actionsOrder(r report.Report) string {
	const priority = "a priority score from its prevalence (how common), severity (how severe) and confidence (how sure the analysis is)"
	byFailures := labelled(r.Clusters)
	if len(r.Clusters) == 0 {
		byFailures = r.Population.Labelled.Any() || r.Population.Labelled.Field != ""
	}
	if byFailures {
		return "RISK Actions come first, ranked by " + priority + ". The other Actions follow by the failed conversations their issue accounts for: how many more of its conversations failed than the upload's overall failure rate predicts for an issue of its size. So the issue that costs the most failures comes first, and its priority score may be lower than the next one's; an issue whose conversations fail less often than the rest comes after one that explains none, and equal counts go by how unlikely the excess is by chance (its q-value), then by priority score."
	}
	return "Each is ranked by " + priority + "."
}

// labelled reports whether the clusters carry a split by outcome label.
func labelled(cs []report.Cluster) bool {
	for _, c := range cs {
		if c.LabelOutcomes != nil {
			return true
		}
	}
	return false
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
