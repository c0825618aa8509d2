package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/web/browsertest"
)

// TestUploadInBrowser drives the upload page in headless Chromium against a real
// server, first with htmx: a refused file's errors replace the form in the same
// document with the title kept, and the sample then lands on its task page with the
// flash. Then with JavaScript off, as the plain form: the same two outcomes as pages.
func TestUploadInBrowser(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	ctx := browsertest.Start(t, 2*time.Minute)
	signInBrowser(t, ctx, b)
	bad := filepath.Join(t.TempDir(), "robots.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(strings.Repeat(`{"messages": [{"role": "robot", "content": "hi"}]}`+"\n", 25)), 0o644))
	sample, err := filepath.Abs(samplePath)
	require.NoError(t, err)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(b.url+"/tasks/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-form"]`)),
		chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`),
	))
	submit(t, ctx, "Robots, 三月", bad)
	waitFor(t, ctx, `document.querySelector('[data-testid="upload-errors"]') !== null`)
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
		SameDocument bool   `json:"sameDocument"`
		Problems     int    `json:"problems"`
		More         string `json:"more"`
		Title        string `json:"title"`
	}](`({sameDocument: window.sameDocument === true,
		problems: document.querySelectorAll('[data-testid="upload-problem"]').length,
		more: document.querySelector('[data-testid="upload-more"]').textContent,
		title: document.querySelector('[data-testid="upload-title"]').value})`))
	require.NoError(t, err)
	require.True(t, shown.SameDocument, "htmx swapped the errors in; the page was not reloaded")
	require.Equal(t, 20, shown.Problems)
	require.Equal(t, "and 5 more", shown.More)
	require.Equal(t, "Robots, 三月", shown.Title)
	browsertest.Screenshot(t, ctx, "htmx-errors")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetUploadFiles(chromedp.CSS(`[data-testid="upload-file"]`), []string{sample}),
		chromedp.Click(chromedp.CSS(`[data-testid="upload-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="task-page"]`)),
	))
	requireFlash(t, ctx, "Uploaded 100 conversations (OpenAI chat JSONL); the diagnosis has started. Outcome labels read from metadata.success: 69 failed, 31 succeeded, 0 without a label.")

	_, err = chromedp.Run(ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(b.url+"/tasks/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-form"]`)),
	))
	submit(t, ctx, "Plain form", bad)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-errors"]`))))
	title, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`[data-testid="upload-title"]`)))
	require.NoError(t, err)
	require.Equal(t, "Plain form", title)
	browsertest.Screenshot(t, ctx, "plain-errors")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetUploadFiles(chromedp.CSS(`[data-testid="upload-file"]`), []string{sample}),
		chromedp.Click(chromedp.CSS(`[data-testid="upload-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="task-page"]`)),
	))
	flash, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="flash"]`)))
	require.NoError(t, err)
	require.Regexp(t, `^Uploaded 100 conversations \(OpenAI chat JSONL\); the diagnosis has started\. .* You uploaded a file of the same name and size on .*: if it held the same conversations, compare the two diagnoses once this one has finished\.$`,
		flash, "the same file again says so")
	require.Equal(t, 2, storedFor(t, b.pool, b.alice.User.ID).Tasks)
}

// submit fills the upload form and sends it.
func submit(t *testing.T, ctx context.Context, title, file string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`[data-testid="upload-title"]`), title),
		chromedp.SetUploadFiles(chromedp.CSS(`[data-testid="upload-file"]`), []string{file}),
		chromedp.Click(chromedp.CSS(`[data-testid="upload-submit"]`)),
	))
}

func requireFlash(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	flash, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="flash"]`)))
	require.NoError(t, err)
	require.Equal(t, want, flash)
}
