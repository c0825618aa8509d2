package components

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/report"
)

// chartRows is the most rows a bar chart of the task page draws; the table beside it
// lists the rest.
const chartRows = 10

// FunnelChart is the quality funnel: the conversations left after each step.
func FunnelChart(l *locale.Localizer, steps []report.FunnelStep) BarChart {
	c := BarChart{ID: "funnel-chart", Title: l.T("funnel.chart_title"), Desc: l.T("funnel.chart_desc")}
	if len(steps) > 0 {
		c.Max = float64(steps[0].Remaining)
	}
	for _, s := range steps {
		label, text := funnelRow(l, s)
		c.Rows = append(c.Rows, BarRow{Label: label, Bars: []Bar{{Value: float64(s.Remaining), Text: text}}})
	}
	return c
}

// funnelRow is a funnel bar's label and value: a check's bar is what it left, so its
// label says it is a check and what it removed, lest "Malformed 100" read as 100
// malformed conversations.
func funnelRow(l *locale.Localizer, s report.FunnelStep) (label, text string) {
	switch s.Step {
	case "uploaded":
		return s.Label, l.N("count.conversations", s.Remaining)
	case string(taskstate.QCKept):
		return l.T("funnel.chart_kept"), l.N("count.conversations", s.Remaining)
	}
	return l.T("funnel.chart_check", "Step", s.Label, "N", s.Removed), l.T("funnel.chart_left", "N", s.Remaining)
}

// ClusterShareChart is the share of the analyzed conversations each issue covers, in
// the order of the table under it (the Actions' ranking, not the share), so a bar and
// its row are read in the same place; RISK issues are in their own colour and an issue
// with an Action links to it.
func ClusterShareChart(l *locale.Localizer, clusters []report.Cluster) BarChart {
	cs := issues(clusters)
	c := BarChart{ID: "cluster-share-chart", Title: l.T("clusters.chart_title"), Desc: l.T("clusters.chart_desc"), Max: 1}
	if len(cs) > chartRows {
		c.Desc += l.T("clusters.chart_first", "Shown", chartRows, "N", len(cs))
		cs = cs[:chartRows]
	}
	if len(cs) > 0 {
		c.Max = slices.MaxFunc(cs, func(a, b report.Cluster) int { return cmp.Compare(a.Prevalence, b.Prevalence) }).Prevalence
	}
	for _, cl := range cs {
		class := ""
		if cl.Type == "RISK" {
			class = "risk"
		}
		row := BarRow{Label: cl.TitleIn(l), Bars: []Bar{{Value: cl.Prevalence, Text: l.Num(cl.Conversations) + " · " + l.Percent(cl.Prevalence), Class: class}}}
		if cl.ActionRank > 0 {
			row.Href = fmt.Sprintf("#action-%d", cl.ActionRank)
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

// DriverChart is the failure rate of the conversations with and without each failure
// driver.
func DriverChart(l *locale.Localizer, ds []report.Driver) BarChart {
	c := BarChart{ID: "driver-chart", Title: l.T("drivers.chart_title"), Desc: l.T("drivers.chart_desc"),
		Series: []string{l.T("drivers.with"), l.T("drivers.without")}, Classes: []string{"bad", "s1"}, Max: 1}
	for i, d := range ds {
		if i == chartRows {
			break
		}
		c.Rows = append(c.Rows, BarRow{Label: report.DriverKindLabel(l, d.Kind) + l.T("outcomes.colon") + " " + report.DriverFeatureLabel(l, d.Kind, d.Feature), Bars: []Bar{
			{Value: d.RateWith, Text: l.Percent(d.RateWith)},
			{Value: d.RateWithout, Text: l.Percent(d.RateWithout)},
		}})
	}
	return c
}

// OutcomeMix is the kept conversations by their outcome label.
func OutcomeMix(l *locale.Localizer, lb report.Labelled) StackedBar {
	s := StackedBar{ID: "outcome-mix", Title: l.T("outcomes.mix_title"), Desc: l.T("outcomes.mix_desc"),
		Parts: []StackPart{{Name: l.T("outcomes.mix_failed"), Count: lb.Failed, Class: "bad"}, {Name: l.T("outcomes.mix_succeeded"), Count: lb.Succeeded, Class: "ok"}}}
	if lb.Unlabelled > 0 {
		s.Parts = append(s.Parts, StackPart{Name: l.T("outcomes.mix_unlabelled"), Count: lb.Unlabelled, Class: "none"})
	}
	return s
}
