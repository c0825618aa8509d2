package components_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/views/components"
)

// TestIssueChartFollowsTheTable: the bar chart above "All issues" lists the issues in
// the table's rank order, not by size (a larger issue ranked lower stays below), its
// bars are scaled to the largest shown, and its caption says the order it follows.
func TestIssueChartFollowsTheTable(t *testing.T) {
	t.Parallel()
	var clusters []report.Cluster
	for i, n := range []int{13, 15, 27, 10, 29, 15, 9, 7, 11, 5, 2, 2} {
		clusters = append(clusters, report.Cluster{Idx: i, Type: "ACTION", Title: fmt.Sprintf("Issue ranked %d", i+1),
			Conversations: n, Prevalence: float64(n) / 100, ActionRank: i + 1})
	}
	clusters = append(clusters, report.Cluster{Idx: 12, Type: "ACTION", Title: "Expected", Conversations: 44, Prevalence: 0.44, Expected: true})
	b, err := locale.New()
	require.NoError(t, err)
	zh, _ := b.For(locale.Chinese)
	for _, c := range []struct {
		l       *locale.Localizer
		caption string
	}{
		{b.English(), "in the table's order (ranked as the table says, not by size)"},
		{zh, "顺序与下方表格相同（按表格的排名，而不是按大小）"},
	} {
		var buf bytes.Buffer
		require.NoError(t, components.Clusters(clusters, components.Review{TaskID: "t"}).Render(locale.NewContext(context.Background(), c.l), &buf))
		doc, err := goquery.NewDocumentFromReader(&buf)
		require.NoError(t, err)
		bars := doc.Find(`svg[aria-labelledby^="cluster-share-chart"] [data-testid="chart-row"] text.label`).Map(func(_ int, s *goquery.Selection) string { return s.Text() })
		rows := doc.Find(`[data-testid="cluster"]`).Map(func(_ int, s *goquery.Selection) string {
			return strings.TrimSpace(s.Find("td").Eq(1).Contents().First().Text())
		})
		require.Len(t, rows, 12, c.l.Code())
		require.Equal(t, rows[:10], bars, "%s: the chart reads in the table's order, its first 10", c.l.Code())
		require.Contains(t, doc.Find("#cluster-share-chart-desc").Text(), c.caption)

		widths := doc.Find(`svg[aria-labelledby^="cluster-share-chart"] [data-testid="chart-row"] rect`).Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("width", "") })
		require.Equal(t, maxOf(t, widths), widths[4], "%s: the largest shown (29 conversations, ranked 5th) has the longest bar", c.l.Code())
	}
}

func maxOf(t *testing.T, ws []string) string {
	t.Helper()
	best, bestN := "", -1
	for _, w := range ws {
		var n int
		_, err := fmt.Sscan(w, &n)
		require.NoError(t, err)
		if n > bestN {
			best, bestN = w, n
		}
	}
	return best
}

// TestRiskRefusalsSayWhatTheyCount: on the task page the refusal row of risk screening
// carries the note that tells it apart from the policy declines of Expected behavior,
// while the label itself stays short enough for a turn's badge.
func TestRiskRefusalsSayWhatTheyCount(t *testing.T) {
	t.Parallel()
	b, err := locale.New()
	require.NoError(t, err)
	zh, _ := b.For(locale.Chinese)
	rs := &report.RiskSummary{Screened: 100, Flagged: 56, Selected: 100, Kinds: []report.RiskKind{
		{Kind: "refusal", Conversations: 25, Flags: 45}, {Kind: "tool_error", Conversations: 29, Flags: 63}}}
	for l, want := range map[*locale.Localizer][2]string{
		b.English(): {"Outright refusals by the agent", "for any reason; declines its policy calls for, in any words, are under Expected behavior"},
		zh:          {"智能体的直接拒绝", "不论原因；按其政策告知请求无法办理的，不论措辞，都列在“预期行为”中"},
	} {
		var buf bytes.Buffer
		require.NoError(t, components.RiskSummary("t", rs).Render(locale.NewContext(context.Background(), l), &buf))
		doc, err := goquery.NewDocumentFromReader(&buf)
		require.NoError(t, err)
		refusal := doc.Find(`[data-testid="risk-kind"][data-kind="refusal"]`)
		require.Equal(t, want[0], refusal.Find("b").Text(), l.Code())
		require.Contains(t, refusal.Find(`[data-testid="risk-kind-note"]`).Text(), want[1], l.Code())
		require.Zero(t, doc.Find(`[data-kind="tool_error"] [data-testid="risk-kind-note"]`).Length(), "%s: a kind whose label says enough has no note", l.Code())
	}
}
