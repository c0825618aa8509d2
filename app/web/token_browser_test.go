package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/web/browsertest"
)

// TestTokensPageInBrowser goes from the header to /settings/tokens in Chromium, makes
// a token, uses it on the API, finds it listed with its use and without the token
// when the page is opened again, and revokes it through the confirmation dialog: the API refuses it
// from then on.
func TestTokensPageInBrowser(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	ctx := browsertest.Start(t, time.Minute)
	signInBrowser(t, ctx, b)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(b.url+"/tasks"),
		chromedp.Click(chromedp.CSS(`[data-testid="nav-tokens"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="token-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="token-name"]`), "release pipeline"),
		chromedp.Click(chromedp.CSS(`[data-testid="token-create"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="new-token"]`)),
	))
	token, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="new-token"]`)))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(token, "ck_"), token)
	browsertest.Screenshot(t, ctx, "token-created")

	api := authtest.NewAPIClient(b.url, token)
	require.Equal(t, http.StatusOK, api.Do(t, http.MethodGet, "/api/v1/tasks", nil, "").StatusCode, "the token shown works")

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.url+"/settings/tokens"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="token-table"]`))))
	state, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
		Shown    bool   `json:"shown"`
		Name     string `json:"name"`
		LastUsed string `json:"lastUsed"`
	}](`({shown: document.body.textContent.includes(`+jsString(token)+`),
		name: document.querySelector('[data-testid="token-row-name"]').textContent,
		lastUsed: document.querySelector('[data-testid="token-last-used"]').textContent.trim()})`))
	require.NoError(t, err)
	require.False(t, state.Shown, "the token is shown once only")
	require.Equal(t, "release pipeline", state.Name)
	require.Equal(t, "just now", state.LastUsed)

	// On a 390 px phone the list stacks, and Revoke is on the screen, not past its edge.
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="token-table"]`))))
	revoke, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
		Right  float64 `json:"right"`
		Width  int     `json:"width"`
		Scroll int     `json:"scroll"`
	}](`(() => { const r = document.querySelector('[data-testid="token-revoke"]').getBoundingClientRect();
		return {right: r.right, width: document.documentElement.clientWidth, scroll: document.documentElement.scrollWidth}; })()`))
	require.NoError(t, err)
	require.Equal(t, 390, revoke.Width)
	require.LessOrEqual(t, revoke.Right, float64(revoke.Width), "Revoke fits the screen")
	require.LessOrEqual(t, revoke.Scroll, revoke.Width, "the page does not scroll sideways")
	browsertest.Screenshot(t, ctx, "tokens-phone")
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="token-table"]`))))

	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			if strings.Contains(ev.Message, "release pipeline") {
				_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
			}
			return
		}
	}()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="token-revoke"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="no-tokens"]`)),
	))
	flash, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="flash"]`)))
	require.NoError(t, err)
	require.Contains(t, flash, "“release pipeline” is revoked")
	browsertest.Screenshot(t, ctx, "token-revoked")
	require.Equal(t, http.StatusUnauthorized, api.Do(t, http.MethodGet, "/api/v1/tasks", nil, "").StatusCode, "revoked")
}

// jsString quotes s for a JavaScript expression.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
