package web_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"
)

// rankFigure is a figure of the issues table's "Ranked by" column: what it counts, in
// the order the table goes through them (0 the failures an issue explains at least, 1
// its weighted reach at least, a percentage, 2 seen once), and how much.
type rankFigure struct {
	kind  int
	value float64
}

var rankNumber = regexp.MustCompile(`(<)?(\d+(?:\.\d+)?)(%)?`)

// readRankFigure reads a "Ranked by" cell as either language writes it: a cell of
// percentages is a reach, the last its weighted reach, what ranks ("<0.1%" counts as
// 0.05%); another figure is the failures explained, and a cell without one an issue
// seen once.
func readRankFigure(t *testing.T, cell string) rankFigure {
	t.Helper()
	all := rankNumber.FindAllStringSubmatch(cell, -1)
	if len(all) == 0 {
		return rankFigure{kind: 2}
	}
	m := all[0]
	for _, n := range all {
		if n[3] == "%" {
			m = n // the weighted reach comes last
		}
	}
	v, err := strconv.ParseFloat(m[2], 64)
	require.NoError(t, err, cell)
	if m[1] == "<" {
		v /= 2
	}
	if m[3] == "%" {
		return rankFigure{kind: 1, value: v}
	}
	return rankFigure{kind: 0, value: v}
}

// requireInRankOrder requires the cells of a "Ranked by" column to read down the table:
// the failures explained never grow, then the reach never grows, then the issues seen
// once; and the column to show more than one kind, so the order is put to the test.
func requireInRankOrder(t *testing.T, what string, cells []string) {
	t.Helper()
	require.GreaterOrEqual(t, len(cells), 5, "%s: %q", what, cells)
	kinds := map[int]bool{}
	prev := readRankFigure(t, cells[0])
	kinds[prev.kind] = true
	for i, c := range cells[1:] {
		f := readRankFigure(t, c)
		kinds[f.kind] = true
		require.True(t, f.kind > prev.kind || f.kind == prev.kind && f.value <= prev.value,
			"%s: row %d (%q) does not follow row %d (%q): %q", what, i+2, c, i+1, cells[i], cells)
		prev = f
	}
	require.Len(t, kinds, 3, "%s: failures explained, reach and seen once: %q", what, cells)
}

// rankedByOnPage is the cells of the task page's issues table under heading, in order:
// the figures its rows show.
func rankedByOnPage(t *testing.T, page, heading string) []string {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	require.NoError(t, err)
	table := doc.Find(`[data-testid="clusters"] table`)
	var headings []string
	table.Find("tr.head th").Each(func(_ int, s *goquery.Selection) { headings = append(headings, s.Text()) })
	require.Contains(t, headings, heading)
	var cells []string
	table.Find(`[data-testid="cluster"] td[data-label="` + heading + `"] [data-testid="cluster-rank-words"]`).Each(func(_ int, s *goquery.Selection) {
		cells = append(cells, strings.TrimSpace(s.Text()))
	})
	require.Len(t, cells, table.Find(`[data-testid="cluster"]`).Length(), "one figure a row")
	return cells
}

// rankedByInMarkdown is the column called heading of report.md's issues table, in order.
func rankedByInMarkdown(t *testing.T, md, heading string) []string {
	t.Helper()
	var col int
	var cells []string
	in := false
	for _, line := range strings.Split(md, "\n") {
		row := strings.Split(strings.ReplaceAll(line, `\|`, "¦"), "|")
		switch {
		case !in && strings.HasPrefix(line, "| ") && strings.Contains(line, "| "+heading+" |"):
			in = true
			for i, h := range row {
				if strings.TrimSpace(h) == heading {
					col = i
				}
			}
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "|"):
			cells = append(cells, strings.TrimSpace(row[col]))
		case in:
			return cells
		}
	}
	require.True(t, in, "report.md has no column %q", heading)
	return cells
}

// TestIssuesTableReadsInRankOrder: the issues table of the task page and of report.md
// shows, in English and in Chinese, what it is ordered by, so its column reads down the
// table; the priority scores of the same issues do not, and no Action shows its
// priority where the priority decided nothing.
func TestIssuesTableReadsInRankOrder(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	id := b.diagnose(t, b.alice, "Support", loopSample(t))
	task := "/tasks/" + id.String()

	r := taskReport(t, b.alice, id)
	ascending := false
	var last float64
	for i, c := range r.Clusters {
		if !c.Expected {
			ascending = ascending || i > 0 && c.PriorityScore > last
			last = c.PriorityScore
		}
	}
	require.True(t, ascending, "the sample's priority scores grow somewhere down the ranking, as a priority column would show")

	for _, tc := range []struct{ language, heading, explains, tiesOnly string }{
		{"en", "Ranked by", "explains at least", "it orders only Actions the rank"},
		{"zh-CN", "排序依据", "至少解释", "排名依据相同时决定先后"},
	} {
		page := readIn(t, b.alice, task, tc.language)
		require.NotContains(t, page, tc.tiesOnly, "%s: no two of the sample's Actions stand equal, so no card shows the priority as if it ranked it", tc.language)
		cells := rankedByOnPage(t, page, tc.heading)
		require.Contains(t, cells[0], tc.explains, tc.language)
		requireInRankOrder(t, tc.language+" page", cells)

		md := readIn(t, b.alice, task+"/report.md?lang="+tc.language, tc.language)
		require.NotContains(t, md, tc.tiesOnly, "%s report.md", tc.language)
		mdCells := rankedByInMarkdown(t, md, tc.heading)
		requireInRankOrder(t, tc.language+" report.md", mdCells)
		require.Len(t, mdCells, len(cells), "%s: the same issues as the page", tc.language)
	}
}
