package web_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/web/browsertest"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/report/reporttest"
)

// TestTaskPageInBrowser drives the task page in headless Chromium against a real
// server: progress advances without a reload, polling stops at the terminal state and
// the results appear in place, an evidence link opens the quoted turn, report.json
// downloads and agrees with the page, and delete asks first.
func TestTaskPageInBrowser(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	ctx := browsertest.Start(t, 2*time.Minute)
	task := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Title: "Support bot <em>March</em>", Status: "running"})
	setProgress(t, b, task, "diagnosis", 10, 100)
	signInBrowser(t, ctx, b)
	base := b.url + "/tasks/" + task.ID.String()

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(base),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="task-progress"]`)),
		chromedp.Evaluate[chromedp.Void](`window.sameDocument = true; window.progressRequests = 0;
			document.body.addEventListener('htmx:beforeRequest', () => window.progressRequests++)`),
	))
	waitFor(t, ctx, `document.querySelector('[data-testid="progress-count"]').textContent.includes('10 of 100')`)
	setProgress(t, b, task, "diagnosis", 55, 100)
	waitFor(t, ctx, `document.querySelector('[data-testid="progress-count"]').textContent.includes('55 of 100')`)
	setProgress(t, b, task, "actions", 1, 3)
	waitFor(t, ctx, `document.querySelector('[data-testid="progress-stage"]').textContent === 'Writing Actions'`)
	browsertest.Screenshot(t, ctx, "running")

	_, err := b.pool.Exec(t.Context(), `UPDATE analysis_task SET status = 'completed', stage = 'finishing', finished_at = now() WHERE id = $1`, task.ID)
	require.NoError(t, err)
	waitFor(t, ctx, `document.querySelector('[data-testid="task-page"]').dataset.status === 'completed'`)
	state, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
		SameDocument bool `json:"sameDocument"`
		Triggers     int  `json:"triggers"`
		Actions      int  `json:"actions"`
		Requests     int  `json:"requests"`
	}](`({sameDocument: window.sameDocument === true, triggers: document.querySelectorAll('[hx-trigger]').length,
		actions: document.querySelectorAll('[data-testid="action"]').length, requests: window.progressRequests})`))
	require.NoError(t, err)
	require.True(t, state.SameDocument, "the results appeared without a reload")
	require.Zero(t, state.Triggers, "nothing polls once the task is finished")
	require.Equal(t, 2, state.Actions)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`window.progressRequests > `+itoa(state.Requests),
		chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(3*time.Second)))
	require.Error(t, err, "no poll request in the 3 s after the task finished")
	browsertest.Screenshot(t, ctx, "finished")

	title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="task-title"]`)))
	require.NoError(t, err)
	require.Equal(t, "Support bot <em>March</em>", title, "the title is text, not markup")
	ranks, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('[data-testid="action"]')].map(a => a.dataset.rank)`))
	require.NoError(t, err)

	var r report.Report
	require.NoError(t, json.Unmarshal(browsertest.Download(t, ctx, `[data-testid="download-json"]`), &r), "report.json parses")
	require.Equal(t, report.SchemaVersion, r.SchemaVersion)
	require.EqualValues(t, "completed", r.Task.Status)
	require.Len(t, r.Actions, len(ranks))
	for i, a := range r.Actions {
		require.Equal(t, ranks[i], itoa(a.Rank), "report.json ranks match the page")
	}

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="action"] [data-testid="evidence-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#turn-2.evidence mark`)),
	))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.Equal(t, base+"/conversations/1#turn-2", loc, "the evidence link opens the quoted turn, highlighted")
	browsertest.Screenshot(t, ctx, "conversation")

	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
			return
		}
	}()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(base),
		chromedp.Click(chromedp.CSS(`[data-testid="delete"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="flash"]`)),
	))
	loc, err = chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.Equal(t, b.url+"/tasks", loc)
	browsertest.Screenshot(t, ctx, "list-after-delete")
	require.Equal(t, 404, b.alice.Get(t, "/tasks/"+task.ID.String()).StatusCode, "deleted")
}

func setProgress(t *testing.T, b taskBundle, task reporttest.Inserted, stage string, done, total int) {
	t.Helper()
	_, err := b.pool.Exec(t.Context(), `UPDATE analysis_task SET stage = $2, progress_done = $3, progress_total = $4 WHERE id = $1`,
		task.ID, stage, done, total)
	require.NoError(t, err)
}

// signInBrowser gives the browser alice's session cookie.
func signInBrowser(t *testing.T, ctx context.Context, b taskBundle) {
	t.Helper()
	browserSession(t, ctx, b.url, b.alice)
}

// browserSession gives the browser the session cookie of c, signed in at base.
func browserSession(t *testing.T, ctx context.Context, base string, c *authtest.Client) {
	t.Helper()
	u, err := url.Parse(base)
	require.NoError(t, err)
	var token string
	for _, ck := range c.HTTP.Jar.Cookies(u) {
		if ck.Name == auth.SessionCookie {
			token = ck.Value
		}
	}
	require.NotEmpty(t, token)
	require.NoError(t, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, network.SetCookie, network.SetCookieParams{Name: auth.SessionCookie, Value: token, URL: base})
		return err
	})))
}

// waitFor waits, up to 15 s, until the JavaScript expression is true in the page.
func waitFor(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	browsertest.WaitFor(t, ctx, expr, 15*time.Second)
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestTaskListInBrowser: a running row's status cell polls, advances, and settles on
// the final status; finished rows never poll.
func TestTaskListInBrowser(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	ctx := browsertest.Start(t, time.Minute)
	reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Title: "Finished one"})
	running := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Title: "Running one", Status: "running"})
	setProgress(t, b, running, "diagnosis", 10, 100)
	signInBrowser(t, ctx, b)
	row := `document.querySelector('[data-task-id="` + running.ID.String() + `"] [data-testid="task-status"]')`

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(b.url+"/tasks"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="task-table"]`)),
		chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`),
	))
	polling, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[hx-trigger]').length`))
	require.NoError(t, err)
	require.Equal(t, 1, polling, "only the running row polls")
	setProgress(t, b, running, "diagnosis", 70, 100)
	waitFor(t, ctx, row+`.querySelector('progress').value === 70`)

	_, err = b.pool.Exec(t.Context(), `UPDATE analysis_task SET status = 'completed', finished_at = now() WHERE id = $1`, running.ID)
	require.NoError(t, err)
	waitFor(t, ctx, row+`.querySelector('[data-testid="status-badge"]').dataset.status === 'completed'`)
	settled, err := chromedp.Run(ctx, chromedp.Evaluate[bool](
		`window.sameDocument === true && document.querySelectorAll('[hx-trigger]').length === 0`))
	require.NoError(t, err)
	require.True(t, settled, "the row settled in place and nothing polls any more")
	browsertest.Screenshot(t, ctx, "list")
}
