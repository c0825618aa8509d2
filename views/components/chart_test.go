package components_test

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/views/components"
)

func renderSVG(t *testing.T, c templ.Component) *goquery.Selection {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, c.Render(locale.NewContext(context.Background(), english(t)), &buf))
	doc, err := goquery.NewDocumentFromReader(&buf)
	require.NoError(t, err)
	svg := doc.Find("svg")
	require.Equal(t, 1, svg.Length())
	return svg
}

func width(t *testing.T, s *goquery.Selection) int {
	t.Helper()
	w, err := strconv.Atoi(s.AttrOr("width", ""))
	require.NoError(t, err)
	return w
}

// TestBarChartIsAccessibleAndToScale: a bar chart names itself for screen readers
// (role, title and description it is labelled by), writes its labels and values as
// text, draws bars in proportion, shows a non-zero value and links a row when asked.
func TestBarChartIsAccessibleAndToScale(t *testing.T) {
	t.Parallel()
	clusters := []report.Cluster{
		{Type: "ACTION", Title: "Tool call returns an error", Conversations: 30, Prevalence: 0.3, ActionRank: 2},
		{Type: "RISK", Title: "Card numbers shown <b>to users</b>", Conversations: 15, Prevalence: 0.15},
		{Type: "ACTION", Title: "Refusals the policy asks for", Conversations: 40, Prevalence: 0.4, Expected: true},
		{Type: "ACTION", Title: strings.Repeat("很长的标题", 20), Conversations: 1, Prevalence: 0.001},
	}
	svg := renderSVG(t, components.BarChartSVG(components.ClusterShareChart(english(t), clusters)))
	require.Equal(t, "img", svg.AttrOr("role", ""))
	require.Equal(t, "cluster-share-chart-title cluster-share-chart-desc", svg.AttrOr("aria-labelledby", ""))
	require.Equal(t, "Share of the analyzed conversations per issue", svg.Find("#cluster-share-chart-title").Text())
	require.NotEmpty(t, svg.Find("#cluster-share-chart-desc").Text())

	rows := svg.Find(`[data-testid="chart-row"]`)
	require.Equal(t, 3, rows.Length(), "expected behavior is no issue")
	first, second, last := rows.Eq(0), rows.Eq(1), rows.Eq(2)
	require.Equal(t, "Tool call returns an error", first.Find("text.label").Text())
	require.Equal(t, "30 · 30%", first.Find("text.value").Text())
	require.Equal(t, "#action-2", first.Find("a").AttrOr("href", ""), "an issue with an Action links to it")
	require.Equal(t, "Card numbers shown <b>to users</b>", second.Find("text.label").Text(), "text, not markup")
	require.Zero(t, second.Find("a").Length())
	require.Contains(t, second.Find("rect").AttrOr("class", ""), "risk")
	require.InDelta(t, 2*width(t, second.Find("rect")), width(t, first.Find("rect")), 1, "bars are to scale")
	require.Equal(t, 1, width(t, last.Find("rect")), "a small share still shows")
	require.True(t, strings.HasSuffix(last.Find("text.label").Text(), "…"), "a long label is cut")
	require.Contains(t, last.Find("title").Text(), strings.Repeat("很长的标题", 20), "and whole in its title")
}

func TestDriverChartHasTwoSeries(t *testing.T) {
	t.Parallel()
	svg := renderSVG(t, components.BarChartSVG(components.DriverChart(english(t), []report.Driver{
		{Kind: "tool_error", Feature: "book_reservation", RateWith: 0.8, RateWithout: 0.4},
	})))
	require.Equal(t, []string{"with", "without"}, svg.Find("text.legend").Map(func(_ int, s *goquery.Selection) string { return s.Text() }))
	row := svg.Find(`[data-testid="chart-row"]`)
	require.Equal(t, "tool returned an error: book_reservation", row.Find("text.label").Text())
	bars := row.Find("rect")
	require.Equal(t, 2, bars.Length())
	require.InDelta(t, width(t, bars.Eq(0)), 2*width(t, bars.Eq(1)), 1)
	require.Equal(t, "tool returned an error: book_reservation: with 80%, without 40%", row.Find("title").Text())
}

func TestOutcomeMixAddsUp(t *testing.T) {
	t.Parallel()
	svg := renderSVG(t, components.StackedBarSVG(components.OutcomeMix(english(t), report.Labelled{Failed: 13, Succeeded: 180, Unlabelled: 7})))
	legend := svg.Find("text.legend").Map(func(_ int, s *goquery.Selection) string { return s.Text() })
	require.Equal(t, []string{"failed: 13 (6.5%)", "succeeded: 180 (90%)", "without a label: 7 (3.5%)"}, legend)
	total := 0
	svg.Find("rect").Slice(0, 3).Each(func(_ int, s *goquery.Selection) { total += width(t, s) })
	require.Equal(t, 340, total, "the parts fill the bar")
}

func TestSparkline(t *testing.T) {
	t.Parallel()
	svg := renderSVG(t, components.SparklineSVG(components.Sparkline{Title: "Share of the top issue", Points: []float64{0.3, 0.2, 0.1},
		Texts: []string{"1 Mar: 30%", "8 Mar: 20%", "15 Mar: 10%"}}))
	require.Equal(t, "Share of the top issue: 1 Mar: 30%; 8 Mar: 20%; 15 Mar: 10%", svg.AttrOr("aria-label", ""))
	points := strings.Fields(svg.Find("polyline").AttrOr("points", ""))
	require.Len(t, points, 3)
	y := func(p string) float64 {
		v, err := strconv.ParseFloat(p[strings.Index(p, ",")+1:], 64)
		require.NoError(t, err)
		return v
	}
	require.Less(t, y(points[0]), y(points[2]), "a falling share draws downwards")
	one := renderSVG(t, components.SparklineSVG(components.Sparkline{Title: "t", Points: []float64{0.5}, Texts: []string{"x"}}))
	require.Zero(t, one.Find("polyline").Length(), "one point is a dot")
	require.Equal(t, 1, one.Find("circle").Length())
}

// TestFunnelChartSaysWhatIsLeft: a check's bar is the conversations left after it, and
// its label names the check and what it removed, so "Malformed 100" cannot read as 100
// malformed conversations; the chart keeps its title and description.
func TestFunnelChartSaysWhatIsLeft(t *testing.T) {
	t.Parallel()
	svg := renderSVG(t, components.BarChartSVG(components.FunnelChart(english(t), []report.FunnelStep{
		{Step: "uploaded", Label: "Uploaded", Remaining: 100},
		{Step: "malformed", Label: "Malformed", Remaining: 100},
		{Step: "empty", Label: "Empty", Removed: 3, Remaining: 97},
		{Step: "kept", Label: "Kept", Remaining: 97},
	})))
	require.Equal(t, "funnel-chart-title funnel-chart-desc", svg.AttrOr("aria-labelledby", ""))
	require.Equal(t, "Conversations left after each quality check", svg.Find("#funnel-chart-title").Text())
	require.Contains(t, svg.Find("#funnel-chart-desc").Text(), "left after it")
	rows := svg.Find(`[data-testid="chart-row"]`)
	var labels, values []string
	rows.Each(func(_ int, r *goquery.Selection) {
		labels = append(labels, r.Find("text.label").Text())
		values = append(values, r.Find("text.value").Text())
	})
	require.Equal(t, []string{"Uploaded", "Malformed check — 0 removed", "Empty check — 3 removed", "Kept for analysis"}, labels)
	require.Equal(t, []string{"100 conversations", "100 left", "97 left", "97 conversations"}, values)
	require.Contains(t, rows.Eq(1).Find("title").Text(), "Malformed check — 0 removed")
}
