package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/app/web/browsertest"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/report/compare"
)

// TestCompareTwoUploadsInTheBrowser is the PM's loop closed on two real uploads to the
// real binary, diagnosed offline: the sample, then the sample without the conversations
// of one of its issues, under the same title. On the second run's page the picker
// offers the first; Compare shows that issue resolved and every other the same, and
// compare.json says what the page says. The task page, the compare page and the task
// list are then checked on a 390 px wide phone: nothing is cut off on the right and
// Top issues keeps its type column.
func TestCompareTwoUploadsInTheBrowser(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Start(t, 4*time.Minute)
	_, dbURL := dbtest.Isolated(t)
	app := apptest.Start(t, apptest.Build(t, t.TempDir()), []string{"DATABASE_URL=" + dbURL, "WORKER_POLL_MS=200"})
	app.WaitReady(t, time.Minute)
	base := "http://" + app.Addr

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/tasks"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="local-sign-in"]`)),
		chromedp.SendKeys(chromedp.CSS(`#name`), "Pat PM"),
		chromedp.SendKeys(chromedp.CSS(`#email`), "pat@example.com"),
		chromedp.Submit(chromedp.CSS(`[data-testid="local-sign-in"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="empty-state"]`)),
	))

	first := uploadAndWait(t, ctx, base, sample(t))
	before := fetchJSON[report.Report](t, ctx, first+"/report.json")
	gone := removableCluster(t, before)
	reduced := withoutConversations(t, sample(t), gone.ConversationSeqs)
	second := uploadAndWait(t, ctx, base, reduced)

	// Pick → compare.
	picked, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="compare-select"]').value`))
	require.NoError(t, err)
	require.Equal(t, strings.TrimPrefix(first, base+"/tasks/"), picked, "the picker offers the earlier run of the same title first")
	browsertest.Screenshot(t, ctx, "task-with-picker")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="compare-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="compare-page"]`)),
	))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.Equal(t, second+"/compare?baseline="+picked, loc)
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]struct {
		Change string `json:"change"`
		Title  string `json:"title"`
	}](`[...document.querySelectorAll('[data-testid="compare-cluster"]')].map(r =>
		({change: r.dataset.change, title: r.querySelector('[data-testid="compare-title"]').textContent}))`))
	require.NoError(t, err)
	require.NotEmpty(t, rows)
	for _, r := range rows {
		if r.Title == gone.Title {
			require.Equal(t, "resolved", r.Change, "the issue whose conversations were removed")
		} else {
			require.Equal(t, "same", r.Change, "%q", r.Title)
		}
	}
	browsertest.Screenshot(t, ctx, "compare")

	c := fetchJSON[compare.Comparison](t, ctx, second+"/compare.json?baseline="+picked)
	require.Equal(t, picked, c.Baseline.ID)
	require.Equal(t, 100, c.Baseline.Population.Analysed)
	require.Equal(t, 100-len(gone.ConversationSeqs), c.Current.Population.Analysed)
	require.Len(t, c.Clusters, len(rows), "compare.json lists what the page lists")
	require.Equal(t, 1, c.Count(compare.Resolved))
	require.Equal(t, len(rows)-1, c.Count(compare.Same))
	require.Empty(t, c.Regressions())
	for _, cl := range c.Clusters {
		if cl.Change == compare.Resolved {
			require.Equal(t, gone.Title, cl.Title)
			require.Equal(t, len(gone.ConversationSeqs), cl.Baseline.Conversations)
			require.InDelta(t, gone.Prevalence, cl.Baseline.Share, 1e-6)
			require.Equal(t, compare.Side{}, cl.Current)
			require.Less(t, cl.PValue, 0.05, "gone from the whole run: more than chance")
		}
	}

	// On a phone.
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2))))
	for name, page := range map[string]string{"phone-task": second, "phone-compare": loc, "phone-list": base + "/tasks"} {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS(`main`))))
		cut, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[document.documentElement.scrollWidth > 390 ? 'the page scrolls sideways' : '',
			...[...document.querySelectorAll('main table, main svg, main section, main article, main form, main img')]
			.filter(e => e.getBoundingClientRect().right > 390.5 || (e.tagName === 'TABLE' && e.scrollWidth > e.clientWidth + 1))
			.map(e => e.tagName + ' ' + (e.dataset.testid || e.closest('[data-testid]')?.dataset.testid || ''))].filter(Boolean)`))
		require.NoError(t, err)
		require.Empty(t, cut, "%s: nothing is cut off on a 390 px screen", name)
		browsertest.Screenshot(t, ctx, name)
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(second), chromedp.WaitVisible(chromedp.CSS(`[data-testid="top-issues"]`))))
	typeColumn, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[...document.querySelectorAll('[data-testid="top-issues"] tr')]
		.map(r => r.children[1].getBoundingClientRect().width)`))
	require.NoError(t, err)
	require.False(t, slices.Contains(typeColumn, 0.0), "Top issues keeps its type column on a phone: %v", typeColumn)
	allIssues, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const s = document.querySelector('[data-testid="clusters"]'); const r = s.getBoundingClientRect();
		return [...s.querySelectorAll('td')].every(td => td.getBoundingClientRect().right <= r.right + 0.5) })()`))
	require.NoError(t, err)
	require.True(t, allIssues, "every cell of All issues is inside its panel")
}

// uploadAndWait uploads a file as "Support bot" through the upload form and waits for
// its diagnosis to finish; it returns the task page's address.
func uploadAndWait(t *testing.T, ctx context.Context, base, file string) string {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/tasks/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="upload-title"]`), "Support bot"),
		chromedp.SetUploadFiles(chromedp.CSS(`[data-testid="upload-file"]`), []string{file}),
		chromedp.Click(chromedp.CSS(`[data-testid="upload-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="task-page"]`)),
	))
	browsertest.WaitFor(t, ctx, `document.querySelector('[data-testid="task-page"]').dataset.status === 'completed'`, 2*time.Minute)
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	return loc
}

// fetchJSON fetches a JSON document with the browser's session and decodes it.
func fetchJSON[T any](t *testing.T, ctx context.Context, url string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](`fetch(`+quoteJS(url)+`).then(r => { if (!r.ok) throw new Error(r.status); return r.json() })`,
		chromedp.EvalAwaitPromise))
	require.NoError(t, err, url)
	return v
}

func quoteJS(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// removableCluster picks the issue to take out of the upload: the smallest of at least
// six conversations (fewer gone from 100 could be chance: p ≥ 0.06) that is not
// expected behavior and contains no other issue's conversations, so removing them
// resolves it and no other.
func removableCluster(t *testing.T, r report.Report) report.Cluster {
	t.Helper()
	var pick *report.Cluster
	for i, c := range r.Clusters {
		if c.Expected || c.Conversations < 6 || (pick != nil && c.Conversations >= pick.Conversations) {
			continue
		}
		holds := slices.ContainsFunc(r.Clusters, func(o report.Cluster) bool {
			return o.Idx != c.Idx && !slices.ContainsFunc(o.ConversationSeqs, func(s int) bool { return !slices.Contains(c.ConversationSeqs, s) })
		})
		if !holds {
			pick = &r.Clusters[i]
		}
	}
	require.NotNil(t, pick, "the sample has an issue that can be taken out alone")
	return *pick
}

// withoutConversations writes the JSONL export at path without the conversations seqs
// (1-based lines, the upload's numbering) to a new file and returns its path.
func withoutConversations(t *testing.T, path string, seqs []int) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var kept []string
	for i, line := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		if !slices.Contains(seqs, i+1) {
			kept = append(kept, line)
		}
	}
	out := filepath.Join(t.TempDir(), "without-one-issue.jsonl")
	require.NoError(t, os.WriteFile(out, []byte(strings.Join(kept, "\n")+"\n"), 0o644))
	return out
}
