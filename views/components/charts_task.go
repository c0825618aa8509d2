package components

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/report"
)

// chartRows is the most rows a bar chart of the task page draws; the table beside it
// lists the rest.
const chartRows = 10

// FunnelChart is the quality funnel: the conversations left after each step.
func FunnelChart(steps []report.FunnelStep) BarChart {
	c := BarChart{ID: "funnel-chart", Title: "Conversations left after each quality check",
		Desc: "One bar per step, from the upload to the conversations kept for analysis; each check's bar is how many conversations were left after it, and its label how many it removed."}
	if len(steps) > 0 {
		c.Max = float64(steps[0].Remaining)
	}
	for _, s := range steps {
		label, text := funnelRow(s)
		c.Rows = append(c.Rows, BarRow{Label: label, Bars: []Bar{{Value: float64(s.Remaining), Text: text}}})
	}
	return c
}

// funnelRow is a funnel bar's label and value: a check's bar is what it left, so its
// label says it is a check and what it removed, lest "Malformed 100" read as 100
// malformed conversations.
func funnelRow(s report.FunnelStep) (label, text string) {
	switch s.Step {
	case "uploaded":
		return s.Label, Plural(s.Remaining, "conversation", "conversations")
	case string(taskstate.QCKept):
		return "Kept for analysis", Plural(s.Remaining, "conversation", "conversations")
	}
	return fmt.Sprintf("%s check — %s removed", s.Label, Count(s.Removed)), Count(s.Remaining) + " left"
}

// ClusterShareChart is the share of the analyzed conversations each issue covers,
// largest first, RISK issues in their own colour; an issue with an Action links to it.
func ClusterShareChart(clusters []report.Cluster) BarChart {
	cs := slices.Clone(issues(clusters))
	slices.SortStableFunc(cs, func(a, b report.Cluster) int { return cmp.Compare(b.Conversations, a.Conversations) })
	c := BarChart{ID: "cluster-share-chart", Title: "Share of the analyzed conversations per issue",
		Desc: "One bar per issue, the largest first: how many analyzed conversations show it and their share.", Max: 1}
	if len(cs) > chartRows {
		c.Desc += fmt.Sprintf(" The %d largest of %d; the table lists all.", chartRows, len(cs))
		cs = cs[:chartRows]
	}
	if len(cs) > 0 {
		c.Max = cs[0].Prevalence
	}
	for _, cl := range cs {
		class := ""
		if cl.Type == "RISK" {
			class = "risk"
		}
		row := BarRow{Label: cl.Title, Bars: []Bar{{Value: cl.Prevalence, Text: Count(cl.Conversations) + " · " + report.Percent(cl.Prevalence), Class: class}}}
		if cl.ActionRank > 0 {
			row.Href = fmt.Sprintf("#action-%d", cl.ActionRank)
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

// DriverChart is the failure rate of the conversations with and without each failure
// driver.
func DriverChart(ds []report.Driver) BarChart {
	c := BarChart{ID: "driver-chart", Title: "Failure rate with and without each driver",
		Desc:   "Two bars per feature: the share of failed conversations among those with it, and among those without it.",
		Series: []string{"with", "without"}, Classes: []string{"bad", "s1"}, Max: 1}
	for i, d := range ds {
		if i == chartRows {
			break
		}
		c.Rows = append(c.Rows, BarRow{Label: report.DriverKindLabel(d.Kind) + ": " + report.DriverFeatureLabel(d.Kind, d.Feature), Bars: []Bar{
			{Value: d.RateWith, Text: report.Percent(d.RateWith)},
			{Value: d.RateWithout, Text: report.Percent(d.RateWithout)},
		}})
	}
	return c
}

// OutcomeMix is the kept conversations by their outcome label.
func OutcomeMix(l report.Labelled) StackedBar {
	s := StackedBar{ID: "outcome-mix", Title: "Outcome labels of the kept conversations",
		Desc:  "One bar split into the conversations labeled failed, succeeded and without a label.",
		Parts: []StackPart{{Name: "failed", Count: l.Failed, Class: "bad"}, {Name: "succeeded", Count: l.Succeeded, Class: "ok"}}}
	if l.Unlabelled > 0 {
		s.Parts = append(s.Parts, StackPart{Name: "without a label", Count: l.Unlabelled, Class: "none"})
	}
	return s
}
