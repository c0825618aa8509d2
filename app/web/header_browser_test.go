package web_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/web/browsertest"
)

// TestTheHeaderFitsEveryWidthInBrowser: signed in with a long email, the header's
// links, language switch, name and sign-out wrap rather than push the page wider than
// the window, at a phone's width, a tablet's and a laptop's, in English and Chinese.
func TestTheHeaderFitsEveryWidthInBrowser(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	long := authtest.SignIn(t, b.pool, b.url, "alice-78044a09-9e87-47f0-9d0f-1214968a03f0@example.com")
	ctx := browsertest.Start(t, 2*time.Minute)
	browserSession(t, ctx, b.url, long)
	for _, language := range []string{"en", "zh-CN"} {
		askFor(t, ctx, language)
		for _, width := range []int64{390, 700, 800, 1000, 1280} {
			require.NoError(t, chromedp.Do(ctx,
				chromedp.EmulateViewport(width, 800),
				chromedp.Navigate(b.url+"/tasks"),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="sign-out"]`)),
			))
			got, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
				Width  int     `json:"width"`
				Scroll int     `json:"scroll"`
				Right  float64 `json:"right"`
			}](`(() => ({width: document.documentElement.clientWidth, scroll: document.documentElement.scrollWidth,
				right: Math.max(...[...document.querySelectorAll('header.site *')].map(e => e.getBoundingClientRect().right))}))()`))
			require.NoError(t, err)
			what := fmt.Sprintf("%s at %d px", language, width)
			require.LessOrEqual(t, got.Scroll, got.Width, "%s: the page scrolls sideways", what)
			require.LessOrEqual(t, got.Right, float64(got.Width)+1, "%s: the header reaches past the window", what)
		}
	}
}
