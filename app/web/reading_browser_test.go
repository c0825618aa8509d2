package web_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/web/browsertest"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
)

// readingTab is the airline sample diagnosed offline and a Chromium tab of its owner
// asking for language, on the task's page.
func readingTab(t *testing.T, language string) (ctx context.Context, base, task string) {
	t.Helper()
	b := setupLoop(t)
	id := b.diagnose(t, b.alice, "Airline support", transcripttest.Sample(t))
	ctx = browsertest.Start(t, 2*time.Minute)
	askFor(t, ctx, language)
	browserSession(t, ctx, b.url, b.alice)
	task = "/tasks/" + id.String()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.url+task), chromedp.WaitVisible(chromedp.CSS(`[data-testid="action"]`))))
	return ctx, b.url, task
}

// badges are the type badges' words on the page, by the type they stand for.
func badges(t *testing.T, ctx context.Context) map[string][]string {
	t.Helper()
	got, err := chromedp.Run(ctx, chromedp.Evaluate[map[string][]string](`(() => {
		const out = {};
		for (const b of document.querySelectorAll('[data-testid="type-badge"]')) (out[b.dataset.type] ||= []).push(b.textContent);
		return out;
	})()`))
	require.NoError(t, err)
	return got
}

// TestTypeBadgesReadInTheReadersLanguageInBrowser: the RISK and ACTION badges of the
// Action cards and the issues table read 风险 and 改进 on the Chinese task page, and
// stay RISK and ACTION on the English one.
func TestTypeBadgesReadInTheReadersLanguageInBrowser(t *testing.T) {
	t.Parallel()
	ctx, _, _ := readingTab(t, "zh-CN,zh;q=0.9")
	zh := badges(t, ctx)
	require.NotEmpty(t, zh["RISK"])
	require.NotEmpty(t, zh["ACTION"])
	for typ, want := range map[string]string{"RISK": "风险", "ACTION": "改进"} {
		for _, got := range zh[typ] {
			require.Equal(t, want, got, typ)
		}
	}

	askFor(t, ctx, "en-US,en;q=0.9")
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid="action"]`))))
	en := badges(t, ctx)
	require.NotEmpty(t, en["RISK"])
	require.NotEmpty(t, en["ACTION"])
	for typ, words := range en {
		for _, got := range words {
			require.Equal(t, typ, got)
		}
	}
}

// TestColumnHeadingsStayOnOneLineInBrowser: on the task page and the conversation list,
// in Chinese and in English, at 1280 px and on a 390 px phone, every column heading
// shown is on one line (对话 does not break in the top issues' narrow count column),
// and the phone's pages still fit the screen.
func TestColumnHeadingsStayOnOneLineInBrowser(t *testing.T) {
	t.Parallel()
	ctx, base, task := readingTab(t, "zh-CN,zh;q=0.9")
	for _, language := range []string{"zh-CN,zh;q=0.9", "en-US,en;q=0.9"} {
		askFor(t, ctx, language)
		for _, width := range []int64{1280, 390} {
			if width == 390 {
				require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(width, 844, chromedp.EmulateMobile)))
			} else {
				require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(width, 900)))
			}
			for _, page := range []string{task, task + "/conversations"} {
				what := fmt.Sprintf("%s at %d px, %s", page, width, language)
				require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+page), chromedp.WaitVisible(chromedp.CSS(`main`))))
				broken, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('th')]
					.filter(th => th.getClientRects().length && th.textContent.trim())
					.filter(th => {
						const r = document.createRange();
						r.selectNodeContents(th);
						return new Set([...r.getClientRects()].filter(c => c.width > 0).map(c => Math.round(c.bottom))).size > 1;
					})
					.map(th => th.textContent.trim())`))
				require.NoError(t, err, what)
				require.Empty(t, broken, "%s: headings broken over lines", what)
				if width == 390 {
					requireFitsTheScreen(t, ctx, what)
				}
			}
		}
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+task), chromedp.WaitVisible(chromedp.CSS(`[data-testid="top-issues"]`))))
	browsertest.Screenshot(t, ctx, "phone-top-issues")
}

// faces are the fonts Chromium set the text of the first element selector matches in,
// as the platform names them.
func faces(t *testing.T, ctx context.Context, selector string) []string {
	t.Helper()
	doc, err := chromedp.Call(ctx, dom.GetDocument, dom.GetDocumentParams{})
	require.NoError(t, err)
	node, err := chromedp.Call(ctx, dom.QuerySelector, dom.QuerySelectorParams{NodeID: doc.Root.NodeID, Selector: selector})
	require.NoError(t, err, selector)
	require.NotZero(t, node.NodeID, "no %s", selector)
	_, err = chromedp.Call(ctx, css.Enable, cdp.Empty{})
	require.NoError(t, err)
	used, err := chromedp.Call(ctx, css.GetPlatformFontsForNode, css.GetPlatformFontsForNodeParams{NodeID: node.NodeID})
	require.NoError(t, err, selector)
	var names []string
	for _, f := range used.Fonts {
		names = append(names, f.FamilyName)
	}
	slices.Sort(names)
	require.NotEmpty(t, names, selector)
	return names
}

// TestQuotesTakeTheirOwnScriptsFaceInBrowser: on the Chinese task page every quote of a
// conversation carries the lang of its own script — zh with Chinese characters, else
// und — and an English quote is set in the face the English page sets it in, not the
// Chinese page's (whose ’ and " are full width); so is an English turn of the
// conversation page.
func TestQuotesTakeTheirOwnScriptsFaceInBrowser(t *testing.T) {
	t.Parallel()
	ctx, base, task := readingTab(t, "zh-CN,zh;q=0.9")
	quotes, err := chromedp.Run(ctx, chromedp.Evaluate[[]struct {
		Lang string `json:"lang"`
		Text string `json:"text"`
	}](`[...document.querySelectorAll('[data-testid="evidence-quote"], [data-testid="risk-quote"], [data-testid="seen-once-quote"], [data-testid="action-evidence-preview"] > span')]
		.map(q => ({lang: q.lang, text: q.textContent}))`))
	require.NoError(t, err)
	require.NotEmpty(t, quotes)
	han := regexp.MustCompile(`\p{Han}`)
	for _, q := range quotes {
		want := "und"
		if han.MatchString(q.Text) {
			want = "zh"
		}
		require.Equal(t, want, q.Lang, q.Text)
	}

	// Every Action's examples unfolded, so the user's words of whichever Action has them
	// are laid out and set in a face.
	quote := `[data-testid="action-evidence-fold"][open] [data-speaker="user"] [data-testid="evidence-quote"]`
	unfold := chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('[data-testid="action-evidence-fold"]').forEach(d => d.open = true)`)
	turn := `[data-testid="turn"][data-role="user"] .text`
	require.NoError(t, chromedp.Do(ctx, unfold))
	zhQuote, heading := faces(t, ctx, quote), faces(t, ctx, `main h2`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+task+"/conversations/1"), chromedp.WaitVisible(chromedp.CSS(turn))))
	zhTurn := faces(t, ctx, turn)

	askFor(t, ctx, "en-US,en;q=0.9")
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(turn))))
	require.Equal(t, faces(t, ctx, turn), zhTurn, "an English turn on the Chinese conversation page")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+task), chromedp.WaitVisible(chromedp.CSS(`[data-testid="action"]`)), unfold))
	require.Equal(t, faces(t, ctx, quote), zhQuote, "an English quote on the Chinese task page")
	require.NotEqual(t, heading, zhQuote, "the Chinese page's own words are set in its Chinese face")
	t.Logf("quote %v, Chinese heading %v", zhQuote, heading)
}

// TestExamplesReadWithoutMarkdownInBrowser: an Action's examples show what the agent
// and the user said without Markdown's emphasis markers (**Reservation ID** reads
// Reservation ID), in the example, its exchange and the folded preview, while
// report.json keeps each quote as the transcript has it, which it is verified against.
func TestExamplesReadWithoutMarkdownInBrowser(t *testing.T) {
	t.Parallel()
	ctx, _, task := readingTab(t, "en-US,en;q=0.9")
	got, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
		Shown  []string `json:"shown"`
		Stored []string `json:"stored"`
	}](`fetch(`+jsString(task+"/report.json")+`).then(r => r.json()).then(r => ({
		shown: [...document.querySelectorAll('[data-testid="evidence-exchange"] > li:not([data-speaker="tool"]) [data-testid="evidence-quote"], [data-testid="evidence"] > [data-testid="evidence-quote"], [data-testid="action-evidence-preview"]')]
			.map(q => q.textContent),
		stored: r.actions.flatMap(a => a.evidence.flatMap(q => [q.quote, ...(q.exchange || []).filter(e => e.speaker !== 'tool' && e.speaker !== 'call').map(e => e.quote)])),
	}))`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.NotEmpty(t, got.Shown)
	emphasis := regexp.MustCompile(`\*\*\S|\b__\S`)
	for _, s := range got.Shown {
		require.NotRegexp(t, emphasis, s)
	}
	marked := 0
	for _, s := range got.Stored {
		if emphasis.MatchString(s) {
			marked++
		}
	}
	require.Positive(t, marked, "report.json keeps the quotes' Markdown")
}
