// Package e2e_test runs Checkup as a real process and uses it the way a PM does, in
// headless Chromium: sign in locally, upload the sample export, watch the diagnosis
// run, read the Actions, open a quoted conversation, download report.json and delete
// the task. The model is llmtest, a real chat-completions server with a delay per call
// so the progress can be seen advancing.
package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/app/web/browsertest"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// sample is the export the test uploads: 100 airline support conversations.
func sample(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "airline-100.jsonl")
	_, err := os.Stat(path)
	require.NoError(t, err)
	return path
}

func TestDiagnosisInTheBrowser(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Start(t, 4*time.Minute)
	_, dbURL := dbtest.Isolated(t)
	model := llmtest.New(t, llmtest.WithScript(func(req llmtest.Request, _ int) llmtest.Reply {
		r := llmtest.Valid(req)
		r.Delay = 40 * time.Millisecond
		return r
	}))
	app := apptest.Start(t, apptest.Build(t, t.TempDir()), []string{
		"DATABASE_URL=" + dbURL, "OPENAI_API_KEY=test-key", "OPENAI_BASE_URL=" + model.URL(), "OPENAI_MODEL=test-model",
		"DIAGNOSIS_CONCURRENCY=1", "WORKER_POLL_MS=200",
	})
	app.WaitReady(t, time.Minute)
	base := "http://" + app.Addr

	// Sign in with the local sign-in, on by default on loopback.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/tasks"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="local-sign-in"]`)),
		chromedp.SendKeys(chromedp.CSS(`#name`), "Pat PM"),
		chromedp.SendKeys(chromedp.CSS(`#email`), "pat@example.com"),
		chromedp.Submit(chromedp.CSS(`[data-testid="local-sign-in"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="empty-state"]`)),
	))

	// Upload the sample.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="empty-new-task"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="upload-title"]`), "Airline support, 100 conversations"),
		chromedp.SetUploadFiles(chromedp.CSS(`[data-testid="upload-file"]`), []string{sample(t)}),
		chromedp.Click(chromedp.CSS(`[data-testid="upload-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="task-page"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="flash"]`)),
		chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`),
	))

	// Watch the progress advance without a reload, then stop at the terminal state.
	browsertest.WaitFor(t, ctx, `(() => {
		const c = document.querySelector('[data-testid="progress-count"]');
		if (c) { window.firstCount = window.firstCount || c.textContent; window.advanced = c.textContent !== window.firstCount }
		return window.advanced || !['pending', 'running'].includes(document.querySelector('[data-testid="task-page"]').dataset.status) })()`,
		time.Minute)
	seen, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.advanced ? 'advanced' :
		document.querySelector('[data-testid="task-page"]').dataset.status + ': ' + document.body.innerText.slice(0, 600)`))
	require.NoError(t, err)
	require.Equal(t, "advanced", seen, "the progress advanced on the page while the task ran")
	browsertest.Screenshot(t, ctx, "running")
	browsertest.WaitFor(t, ctx, `['completed', 'partial'].includes(document.querySelector('[data-testid="task-page"]').dataset.status)`, 3*time.Minute)
	state, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
		SameDocument bool     `json:"sameDocument"`
		Triggers     int      `json:"triggers"`
		Ranks        []string `json:"ranks"`
		Flash        string   `json:"flash"`
	}](`({sameDocument: window.sameDocument === true, triggers: document.querySelectorAll('[hx-trigger]').length,
		ranks: [...document.querySelectorAll('[data-testid="action"]')].map(a => a.dataset.rank),
		flash: document.getElementById('flash').textContent})`))
	require.NoError(t, err)
	require.True(t, state.SameDocument, "progress and results arrived without a reload")
	require.Zero(t, state.Triggers, "polling stopped at the terminal state")
	require.NotEmpty(t, state.Ranks, "the ranked Actions are shown")
	require.Empty(t, state.Flash, "the upload's \"the diagnosis has started\" is gone once it has finished")
	for i, r := range state.Ranks {
		require.Equal(t, strconv.Itoa(i+1), r, "ranks 1..N in order")
	}
	browsertest.Screenshot(t, ctx, "task-page")
	taskURL, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)

	// The downloads say what the page says.
	var r report.Report
	require.NoError(t, json.Unmarshal(browsertest.Download(t, ctx, `[data-testid="download-json"]`), &r), "report.json parses")
	require.Equal(t, report.SchemaVersion, r.SchemaVersion)
	require.Len(t, r.Actions, len(state.Ranks))
	for i, a := range r.Actions {
		require.Equal(t, state.Ranks[i], strconv.Itoa(a.Rank))
	}
	require.Equal(t, 100, r.Population.Uploaded)
	require.Equal(t, "test-model", r.Analysis.Model)

	// An evidence link opens the quoted turn, highlighted.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="evidence-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="transcript"]`)),
	))
	highlighted, err := chromedp.Run(ctx, chromedp.Evaluate[bool](
		`(() => { const t = document.getElementById(location.hash.slice(1)); return t !== null && t.classList.contains('evidence') })()`))
	require.NoError(t, err)
	require.True(t, highlighted)
	browsertest.Screenshot(t, ctx, "conversation")

	// Delete, confirming in the dialog.
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err == nil {
				_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
			}
			return
		}
	}()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(taskURL),
		chromedp.Click(chromedp.CSS(`[data-testid="delete"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="flash"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="empty-state"]`)),
	))
	require.Positive(t, model.Stats().Completions)
}
