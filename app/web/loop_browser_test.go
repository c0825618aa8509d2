package web_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/web/browsertest"
	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/workers/cluster"
)

// TestConversationListInBrowser clicks through the PM's reading of one issue in
// headless Chromium: from an issue on the task page to the list of all its
// conversations, narrowed to the failed ones, searched, and on to one conversation;
// then the list and the settings page on a 390 px phone, where nothing may be wider
// than the screen.
func TestConversationListInBrowser(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	id := b.diagnose(t, b.alice, "Support, labelled", loopSample(t))
	r := taskReport(t, b.alice, id)
	ctx := browsertest.Start(t, 2*time.Minute)
	browserSession(t, ctx, b.url, b.alice)

	biggest := r.Clusters[0]
	for _, c := range r.Clusters {
		if !c.Expected && c.Conversations > biggest.Conversations {
			biggest = c
		}
	}
	link := fmt.Sprintf(`[data-testid="clusters"] a[href$="/conversations?cluster=%d"]`, biggest.Idx)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(b.url+"/tasks/"+id.String()),
		chromedp.WaitVisible(chromedp.CSS(link)),
		chromedp.Click(chromedp.CSS(link)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="conversation-table"]`)),
	))
	scope, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="list-scope"]`)))
	require.NoError(t, err)
	require.Contains(t, scope, "Issue: "+biggest.Title)
	rows := rowCount(t, ctx)
	require.Equal(t, min(biggest.Conversations, 50), rows, "the issue's conversations, a page of them")
	browsertest.Screenshot(t, ctx, "issue")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`#filter-label`), "failed"),
		chromedp.Click(chromedp.CSS(`[data-testid="filter-submit"]`)),
	))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="list-filter"]:nth-of-type(2)`))))
	scope, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="list-scope"]`)))
	require.NoError(t, err)
	require.Contains(t, scope, "Labeled failed")
	labels, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('[data-testid="conversation-label"]')].map(td => td.dataset.labelValue)`))
	require.NoError(t, err)
	require.NotEmpty(t, labels)
	require.Less(t, len(labels), rows, "fewer than the whole issue")
	for _, l := range labels {
		require.Equal(t, "failed", l)
	}
	matches, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="list-matches"]`)))
	require.NoError(t, err)
	require.Equal(t, localetest.English(t).N("matches.count", len(labels))+".", matches, "one page: counted on it")
	browsertest.Screenshot(t, ctx, "issue-failed")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`#q`), "refund"),
		chromedp.Click(chromedp.CSS(`[data-testid="filter-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="list-filter"]:nth-of-type(3)`)),
	))
	scope, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="list-scope"]`)))
	require.NoError(t, err)
	require.Contains(t, scope, `Matching "refund"`)
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	for _, part := range []string{fmt.Sprintf("cluster=%d", biggest.Idx), "label=failed", "q=refund"} {
		require.Contains(t, loc, part, "the filters add up and stay in the address")
	}
	browsertest.Screenshot(t, ctx, "issue-failed-refund")

	first, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`document.querySelector('[data-testid="conversation-row"]').dataset.seq`))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="conversation-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="transcript"]`)),
	))
	conv, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(conv, b.url+"/tasks/"+id.String()+"/conversations/"+first+"?"), conv)
	browsertest.Screenshot(t, ctx, "conversation")

	// The conversation leads back to the list as it was filtered.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="back-to-list"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="conversation-table"]`)),
	))
	back, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	for _, part := range []string{fmt.Sprintf("cluster=%d", biggest.Idx), "label=failed", "q=refund"} {
		require.Contains(t, back, part, "back to the list with its filters")
	}
	scope, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="list-scope"]`)))
	require.NoError(t, err)
	require.Contains(t, scope, `Matching "refund"`)

	// A list of more than a page loads how many its filters let through once it is
	// shown.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(b.url+"/tasks/"+id.String()+"/conversations?min_severity=1"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="next-page"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="list-matches"]`)),
	))
	matches, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="list-matches"]`)))
	require.NoError(t, err)
	require.Regexp(t, `^\d+ conversations match\.$`, matches)
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)))
	for name, page := range map[string]string{
		"list":         "/tasks/" + id.String() + "/conversations",
		"search":       "/tasks/" + id.String() + "/conversations?sort=severity&q=" + url.QueryEscape("退款"),
		"settings":     "/settings/expected",
		"conversation": strings.TrimPrefix(conv, b.url),
	} {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.url+page), chromedp.WaitVisible(chromedp.CSS(`main`))))
		requireFitsTheScreen(t, ctx, page)
		browsertest.Screenshot(t, ctx, "phone-"+name)
	}
}

// TestMarkExpectedInBrowser marks an issue expected on the task page in headless
// Chromium: htmx swaps the page in place, the issue is listed as expected with the
// reason, its Action is gone and the others are ranked 1..N; "Take my mark back" puts
// everything back. The task page's expected behaviour and the settings page are then
// checked on a 390 px phone.
func TestMarkExpectedInBrowser(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	// A title with a long unbroken run, as an export's file name can be: it wraps.
	id := b.diagnose(t, b.alice, "Support-labelled-"+strings.Repeat("export", 20), loopSample(t))
	before := taskReport(t, b.alice, id)
	marked := firstActionCluster(t, before)
	ctx := browsertest.Start(t, 2*time.Minute)
	browserSession(t, ctx, b.url, b.alice)

	form := fmt.Sprintf(`form[action$="/clusters/%d/expected"]`, marked.ClusterIdx)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(b.url+"/tasks/"+id.String()),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="clusters"]`)),
		chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`),
		chromedp.Click(chromedp.CSS(`details:has(> `+form+`) > summary`)),
		chromedp.WaitVisible(chromedp.CSS(form+` [data-testid="mark-reason"]`)),
		chromedp.SendKeys(chromedp.CSS(form+` [data-testid="mark-reason"]`), "Our policy requires it"),
	))
	browsertest.Screenshot(t, ctx, "marking")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(form+` [data-testid="mark-submit"]`))))
	waitFor(t, ctx, `[...document.querySelectorAll('[data-testid="expected-cluster"]')].some(li =>
		li.textContent.includes(`+jsString(marked.ClusterTitle)+`) && li.textContent.includes('Our policy requires it'))`)
	// The confirmation with its Undo is scrolled into view, however far down the mark was.
	waitFor(t, ctx, `(() => { const r = document.getElementById('review-notice').getBoundingClientRect();
		return r.top > -1 && r.bottom < window.innerHeight + 1; })()`)
	state := actionsOnPage(t, ctx)
	require.True(t, state.SameDocument, "swapped in place, without a reload")
	var want []string
	for _, a := range before.Actions {
		if a.ClusterIdx != marked.ClusterIdx {
			want = append(want, a.Title)
		}
	}
	require.Equal(t, want, state.Titles, "its Action is gone, the others keep their order")
	for i, r := range state.Ranks {
		require.Equal(t, fmt.Sprint(i+1), r, "ranks 1..N")
	}
	browsertest.Screenshot(t, ctx, "marked")

	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)))
	requireFitsTheScreen(t, ctx, "task page", `[data-testid="task-title"]`, `[data-testid="expected"]`, `[data-testid="mark-expected"]`)
	browsertest.Screenshot(t, ctx, "phone-marked")
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)))

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(
		fmt.Sprintf(`form[action$="/clusters/%d/expected/delete"] [data-testid="unmark-expected"]`, marked.ClusterIdx)))))
	waitFor(t, ctx, `document.querySelectorAll('[data-testid="action"]').length === `+fmt.Sprint(len(before.Actions)))
	state = actionsOnPage(t, ctx)
	require.True(t, state.SameDocument)
	var titles []string
	for _, a := range before.Actions {
		titles = append(titles, a.Title)
	}
	require.Equal(t, titles, state.Titles, "the undo gives the ranking back")
	browsertest.Screenshot(t, ctx, "undone")
}

// TestMarkNotExpectedInBrowser says in headless Chromium that an issue the policy seems
// to call for is not expected: htmx swaps the page in place and lists it among the
// issues with the reason; "Expected by the policy after all" puts it back.
func TestMarkNotExpectedInBrowser(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	id := b.diagnose(t, b.alice, "Support", loopSample(t))
	policy := policyCluster(t, taskReport(t, b.alice, id))
	ctx := browsertest.Start(t, 2*time.Minute)
	browserSession(t, ctx, b.url, b.alice)

	form := fmt.Sprintf(`form[action$="/clusters/%d/not-expected"]`, policy.Idx)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(b.url+"/tasks/"+id.String()),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="expected"]`)),
		chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`),
		chromedp.Click(chromedp.CSS(`details:has(> `+form+`) > summary`)),
		chromedp.WaitVisible(chromedp.CSS(form+` [data-testid="not-expected-reason"]`)),
		chromedp.SendKeys(chromedp.CSS(form+` [data-testid="not-expected-reason"]`), "The agent may answer this"),
		chromedp.Click(chromedp.CSS(form+` [data-testid="not-expected-submit"]`)),
	))
	waitFor(t, ctx, `[...document.querySelectorAll('[data-testid="cluster"]')].some(tr =>
		tr.textContent.includes(`+jsString(policy.Title)+`) && tr.querySelector('[data-testid="overruled"]')?.textContent.includes('The agent may answer this'))`)
	state := actionsOnPage(t, ctx)
	require.True(t, state.SameDocument, "swapped in place, without a reload")
	browsertest.Screenshot(t, ctx, "not-expected")
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)))
	requireFitsTheScreen(t, ctx, "task page", `[data-testid="review-notice"]`, `[data-testid="overruled"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)))

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(
		fmt.Sprintf(`[data-testid="cluster"] form[action$="/clusters/%d/not-expected/delete"] [data-testid="unmark-not-expected"]`, policy.Idx)))))
	waitFor(t, ctx, `[...document.querySelectorAll('[data-testid="expected-cluster"]')].some(li => li.textContent.includes(`+jsString(policy.Title)+`))
		&& !document.querySelector('[data-testid="overruled"]')`)
	require.True(t, actionsOnPage(t, ctx).SameDocument)
}

func rowCount(t *testing.T, ctx context.Context) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="conversation-row"]').length`))
	require.NoError(t, err)
	return n
}

type pageActions struct {
	SameDocument bool     `json:"sameDocument"`
	Ranks        []string `json:"ranks"`
	Titles       []string `json:"titles"`
}

func actionsOnPage(t *testing.T, ctx context.Context) pageActions {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[pageActions](`({sameDocument: window.sameDocument === true,
		ranks: [...document.querySelectorAll('[data-testid="action"]')].map(a => a.dataset.rank),
		titles: [...document.querySelectorAll('[data-testid="action-title"]')].map(h => h.textContent)})`))
	require.NoError(t, err)
	return s
}

// requireFitsTheScreen fails when the page scrolls sideways, or when an element of
// roots (default: all of main) reaches past the right edge of the screen without a
// scrolling box of its own around it that fits.
func requireFitsTheScreen(t *testing.T, ctx context.Context, what string, roots ...string) {
	t.Helper()
	if len(roots) == 0 {
		roots = []string{"main"}
	}
	var sels []string
	for _, r := range roots {
		sels = append(sels, r, r+" *")
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
		Width   int      `json:"width"`
		Scroll  int      `json:"scroll"`
		Roots   int      `json:"roots"`
		Outside []string `json:"outside"`
	}](`(() => {
		const w = document.documentElement.clientWidth;
		const contained = e => {
			for (let a = e.parentElement; a; a = a.parentElement) {
				if (getComputedStyle(a).overflowX !== 'visible') return a.getBoundingClientRect().right <= w + 1;
			}
			return false;
		};
		const outside = [...document.querySelectorAll(`+jsString(strings.Join(sels, ", "))+`)]
			.filter(e => e.getClientRects().length && e.getBoundingClientRect().right > w + 1 && !contained(e))
			.slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + (e.dataset.testid || ''));
		return {width: w, scroll: document.documentElement.scrollWidth,
			roots: document.querySelectorAll(`+jsString(strings.Join(roots, ", "))+`).length, outside};
	})()`))
	require.NoError(t, err)
	require.Equal(t, 390, got.Width, what)
	require.GreaterOrEqual(t, got.Roots, len(roots), "%s: every part checked is on the page", what)
	require.LessOrEqual(t, got.Scroll, got.Width, "%s scrolls sideways", what)
	require.Empty(t, got.Outside, "%s: reaching past the screen", what)
}

// TestARefusedMarkSaysWhyInBrowser: a mark the server refuses (here, from a page loaded
// before one of the owner's rules came to say the opposite) shows the server's sentence
// in the form, where the owner is looking; the next try, once it can work, clears it.
func TestARefusedMarkSaysWhyInBrowser(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	id := b.diagnose(t, b.alice, "Support", loopSample(t))
	marked := firstActionCluster(t, taskReport(t, b.alice, id))
	ctx := browsertest.Start(t, 2*time.Minute)
	browserSession(t, ctx, b.url, b.alice)

	form := fmt.Sprintf(`form[action$="/clusters/%d/expected"]`, marked.ClusterIdx)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(b.url+"/tasks/"+id.String()),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="clusters"]`)),
		chromedp.Click(chromedp.CSS(`details:has(> `+form+`) > summary`)),
		chromedp.WaitVisible(chromedp.CSS(form+` [data-testid="mark-submit"]`)),
	))
	c := clusterOf(t, taskReport(t, b.alice, id), marked.ClusterIdx)
	_, err := b.pool.Exec(t.Context(), `INSERT INTO expected_rule (owner_user_id, type, category, normal_title, title, expected)
		VALUES ($1, $2, $3, $4, $5, false)`, b.alice.User.ID, c.Type, c.Category, cluster.NormalTitle(c.Title), c.Title)
	require.NoError(t, err)

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(form+` [data-testid="mark-submit"]`))))
	waitFor(t, ctx, `!!document.querySelector(`+jsString(form+` [data-testid="request-error"]`)+`)`)
	said, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(form+` [data-testid="request-error"]`)))
	require.NoError(t, err)
	require.Contains(t, said, "Your rule for this issue, made on a diagnosis before, says the opposite.")
	browsertest.Screenshot(t, ctx, "refused")

	_, err = b.pool.Exec(t.Context(), `DELETE FROM expected_rule WHERE owner_user_id = $1`, b.alice.User.ID)
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(form+` [data-testid="mark-submit"]`))))
	waitFor(t, ctx, `!!document.getElementById('review-notice') && !document.querySelector('[data-testid="request-error"]')`)
}
