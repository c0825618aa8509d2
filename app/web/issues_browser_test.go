package web_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/web/browsertest"
)

// TestIssuesTableOnAPhoneInBrowser reads the task page's issues table in headless
// Chromium on a 390 px phone, in English and in Chinese: nothing reaches past the
// screen, each row shows the figure it is ranked by, in the table's order, and a
// figure opens on what it rests on, which fits too.
func TestIssuesTableOnAPhoneInBrowser(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	id := b.diagnose(t, b.alice, "Support, labelled", loopSample(t))
	ctx := browsertest.Start(t, 2*time.Minute)
	browserSession(t, ctx, b.url, b.alice)
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)))

	for _, tc := range []struct{ language, label, han string }{
		{"en", "Ranked by", ""},
		{"zh-CN", "排序依据", `\p{Han}`},
	} {
		askFor(t, ctx, tc.language)
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Navigate(b.url+"/tasks/"+id.String()),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="clusters"]`)),
		))
		requireFitsTheScreen(t, ctx, tc.language+": issues table", `[data-testid="clusters"]`)
		rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]struct {
			Label string `json:"label"`
			Text  string `json:"text"`
			Shown bool   `json:"shown"`
		}](`[...document.querySelectorAll('[data-testid="cluster"]')].map(tr => {
			const s = tr.querySelector('[data-testid="cluster-rank-words"]');
			const r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
			return {label: s ? s.closest('td').dataset.label : '', text: s ? s.innerText : '', shown: r.width > 0 && r.height > 0};
		})`))
		require.NoError(t, err)
		var cells []string
		for _, r := range rows {
			require.Equal(t, tc.label, r.Label, tc.language)
			require.True(t, r.Shown, "%s: %q is shown", tc.language, r.Text)
			if tc.han != "" {
				require.Regexp(t, tc.han, r.Text)
			}
			cells = append(cells, r.Text)
		}
		requireInRankOrder(t, tc.language+" phone", cells)
		browsertest.Screenshot(t, ctx, "phone-issues-"+tc.language)

		require.NoError(t, chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(`[data-testid="cluster-rank-words"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="cluster-ranked-by"][open] .muted`)),
		))
		requireFitsTheScreen(t, ctx, tc.language+": a figure opened", `[data-testid="clusters"]`)
		browsertest.Screenshot(t, ctx, "phone-issues-open-"+tc.language)
	}
}
