package components

import (
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/report/compare"
)

// CompareChart is every compared issue's share before (the baseline) and after (the
// current run), in the comparison's order, regressions first.
func CompareChart(l *locale.Localizer, c compare.Comparison) BarChart {
	ch := BarChart{ID: "compare-chart", Title: l.T("compare.chart_title"), Desc: l.T("compare.chart_desc"),
		Series: []string{l.T("compare.chart_baseline"), l.T("compare.chart_current")}, Classes: []string{"s1", "s0"}}
	for i, cl := range c.Clusters {
		if i == chartRows {
			ch.Desc += l.T("compare.chart_first_only")
			break
		}
		ch.Rows = append(ch.Rows, BarRow{Label: ChangeLabel(l, cl.Change) + " · " + cl.TitleIn(l), Bars: []Bar{
			{Value: cl.Baseline.Share, Text: sideText(l, cl.Baseline)},
			{Value: cl.Current.Share, Text: sideText(l, cl.Current), Class: changeClass(cl.Change)},
		}})
	}
	return ch
}

func sideText(l *locale.Localizer, s compare.Side) string {
	if s.Conversations == 0 {
		return "—"
	}
	return l.Num(s.Conversations) + " · " + l.Percent(s.Share)
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
func ChangeLabel(l *locale.Localizer, c compare.Change) string {
	if s, ok := l.Lookup("change." + string(c)); ok {
		return s
	}
	return l.T("change.same")
}
