package pages_test

import (
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/report/compare"
	"github.com/checkup-dev/checkup/views/pages"
)

// TestComparePageSideBySide: the page counts the changes, lists each issue with both
// runs' figures, sets the populations, labels and failure rates side by side, pairs the
// drivers, and says when the runs were diagnosed differently.
func TestComparePageSideBySide(t *testing.T) {
	t.Parallel()
	before := sampleReport("completed")
	before.Task.ID = "11111111-2222-3333-4444-555555555555"
	before.Population.Labelled = report.Labelled{Failed: 30, Succeeded: 63, Field: "metadata.success"}
	before.Drivers = []report.Driver{{Kind: "tool_error", Feature: "book_reservation", RateWith: 0.8, RateWithout: 0.2, Lift: 2.5}}
	after := sampleReport("completed")
	after.Analysis = report.Analysis{Analyzer: "llm", Model: "gpt-4o-mini"}
	after.Population.Labelled = report.Labelled{Failed: 20, Succeeded: 73, Field: "metadata.success"}
	after.Clusters = after.Clusters[1:]
	c := compare.Compare(before, after)
	doc, _ := render(t, pages.CompareShow(page, pages.CompareView{Comparison: c}))

	counts := map[string]string{}
	testid(doc, "compare-count").Each(func(_ int, s *goquery.Selection) { counts[s.AttrOr("data-change", "")] = s.Find("b").Text() })
	require.Equal(t, map[string]string{"worse": "0", "new": "0", "resolved": "1", "better": "0", "same": "2", "now_issue": "0", "now_expected": "0"}, counts)
	first := testid(doc, "compare-cluster").First()
	require.Equal(t, "resolved", first.AttrOr("data-change", ""))
	require.Equal(t, "Card numbers shown", first.Find(`[data-testid="compare-title"]`).Text())
	require.Equal(t, "4 (4.3%)", first.Find(`[data-testid="compare-before"]`).Text())
	require.Equal(t, "—", first.Find(`[data-testid="compare-after"]`).Text())
	require.Contains(t, testid(doc, "compare-failure-rate").Text(), "32%")
	require.Contains(t, testid(doc, "compare-failure-rate").Text(), "22%")
	driver := testid(doc, "compare-driver")
	require.Equal(t, 1, driver.Length())
	require.Contains(t, driver.Text(), "80% / 20% (lift 2.5×)")
	require.Contains(t, driver.Text(), "not a driver")
	require.Contains(t, testid(doc, "compare-analyzers").Text(), "offline rules before, model gpt-4o-mini now")
	require.Equal(t, "/tasks/"+taskID+"/compare.json?baseline="+before.Task.ID, testid(doc, "compare-json").AttrOr("href", ""))
}

// The picker says which way a re-run goes: the task's own re-run, or the run it repeats.
// TestCompareSaysWhichRunHeldAnIssueAsExpected: an issue the owner marked expected since
// the baseline, and one expected in the baseline and an issue now, say so in their
// badge and beside the run that held them expected.
func TestCompareSaysWhichRunHeldAnIssueAsExpected(t *testing.T) {
	t.Parallel()
	before, after := sampleReport("completed"), sampleReport("completed")
	after.Clusters[1].Expected = true  // "Users repeat themselves", marked since
	before.Clusters[2].Expected = true // "Long chats", expected then
	doc, _ := render(t, pages.CompareShow(page, pages.CompareView{Comparison: compare.Compare(before, after)}))
	rows := map[string][3]string{}
	testid(doc, "compare-cluster").Each(func(_ int, s *goquery.Selection) {
		rows[s.Find(`[data-testid="compare-title"]`).Text()] = [3]string{s.Find(`[data-testid="change"]`).Text(),
			s.Find(`[data-testid="compare-before"]`).Text(), s.Find(`[data-testid="compare-after"]`).Text()}
	})
	require.Equal(t, [3]string{"Now expected", "20 (22%)", "20 (22%), as expected behavior"}, rows["Users repeat themselves"])
	require.Equal(t, [3]string{"Now an issue", "2 (2.2%), as expected behavior", "2 (2.2%)"}, rows["Long chats"])
}

func TestCompareOptionSaysWhichRunIsTheRerun(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	require.Contains(t, pages.CompareOption{Title: "Bot", CreatedAt: at, Rerun: true}.Label(english(t)), "its re-run, same conversations")
	require.Contains(t, pages.CompareOption{Title: "Bot", CreatedAt: at, Original: true}.Label(english(t)), "the run this one repeats, same conversations")
	require.NotContains(t, pages.CompareOption{Title: "Bot", CreatedAt: at}.Label(english(t)), "same conversations")
}
