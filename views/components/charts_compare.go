package components

import (
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/report/compare"
)

// CompareChart is every compared issue's share before (the baseline) and after (the
// current run), in the comparison's order, regressions first.
func CompareChart(c compare.Comparison) BarChart {
	ch := BarChart{ID: "compare-chart", Title: "Share of the analyzed conversations per issue, before and after",
		Desc:   "Two bars per issue: its share in the baseline, then in the current run; a missing bar is an issue that run does not have.",
		Series: []string{"baseline", "current"}, Classes: []string{"s1", "s0"}}
	for i, cl := range c.Clusters {
		if i == chartRows {
			ch.Desc += " The first issues only; the table lists all."
			break
		}
		ch.Rows = append(ch.Rows, BarRow{Label: ChangeLabel(cl.Change) + " · " + cl.Title, Bars: []Bar{
			{Value: cl.Baseline.Share, Text: sideText(cl.Baseline)},
			{Value: cl.Current.Share, Text: sideText(cl.Current), Class: changeClass(cl.Change)},
		}})
	}
	return ch
}

func sideText(s compare.Side) string {
	if s.Conversations == 0 {
		return "—"
	}
	return Count(s.Conversations) + " · " + report.Percent(s.Share)
}

// changeClass colours the current run's bar by what changed: red when worse or new,
// green when better, the series' colour otherwise.
func changeClass(c compare.Change) string {
	switch c {
	case compare.Worse, compare.New:
		return "bad"
	case compare.Better:
		return "ok"
	}
	return ""
}

// ChangeLabel is a change in words for people.
func ChangeLabel(c compare.Change) string {
	switch c {
	case compare.Worse:
		return "Worse"
	case compare.New:
		return "New"
	case compare.Resolved:
		return "Resolved"
	case compare.Better:
		return "Better"
	case compare.NowIssue:
		return "Now an issue"
	case compare.NowExpected:
		return "Now expected"
	}
	return "Same"
}
