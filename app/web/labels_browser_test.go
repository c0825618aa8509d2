package web_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/web/browsertest"
)

// conversationName reads the export id out of a conversation page's title,
// "Conversation airline-task03-trial1 (#7)".
var conversationName = regexp.MustCompile(`^Conversation (\S+) \(#\d+\)$`)

// TestLabellingWithTheKeyboardInBrowser is the PM's loop through the pages in headless
// Chromium: from the list most useful to label to its first conversation, then f or s
// (the set's own outcome) and n for the next in the list, conversation after
// conversation, until the agent has the labels its detector needs; the task page then
// says the detector is learning and, without a reload, shows the run scored by it. A
// label button of the list swaps its cell and the counter in place, and the list fits
// a phone's screen.
func TestLabellingWithTheKeyboardInBrowser(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	id := b.upload(t, b.alice, "Airline, unlabelled", "Airline agent", unlabelledAirline(t))
	truth := airlineOutcomes(t)
	ctx := browsertest.Start(t, 4*time.Minute)
	browserSession(t, ctx, b.url, b.alice.browser)

	list := b.url + "/tasks/" + id.String() + "/conversations?sort=to_label"
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(list),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="to-label-rule"]`)),
	))
	browsertest.Screenshot(t, ctx, "to-label")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="conversation-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#label-panel`)),
	))

	labelled := map[string]bool{}
	failed, succeeded := 0, 0
	for failed < 10 || succeeded < 10 {
		require.Less(t, len(labelled), 60, "the minimum is reached well before")
		// Read in one step: a live update may swap the heading between a query and a read.
		title, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="conversation-title"]').textContent`))
		require.NoError(t, err)
		m := conversationName.FindStringSubmatch(title)
		require.NotNil(t, m, title)
		cid := m[1]
		require.False(t, labelled[cid], "%s comes again once labelled", cid)
		key := "s"
		if truth[cid] == "failed" {
			key, failed = "f", failed+1
		} else {
			succeeded++
		}
		// The shortcuts listen once the page's deferred scripts have run.
		waitFor(t, ctx, `document.readyState === 'complete'`)
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(key)))
		waitFor(t, ctx, `document.querySelector('#label-panel').dataset.label === `+jsString(truth[cid]))
		labelled[cid] = true
		if len(labelled) == 1 {
			browsertest.Screenshot(t, ctx, "labelled")
		}
		next, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="next-in-list"]').getAttribute('href')`))
		require.NoError(t, err)
		// The page it leads to has a panel without a label; this one's has one now.
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("n"), chromedp.WaitVisible(chromedp.CSS(`#label-panel[data-label=""]`))))
		at, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname + location.search`))
		require.NoError(t, err)
		require.Equal(t, next, at, "n follows the link to the next in the list")
	}
	counter, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="label-counter"]`)))
	require.NoError(t, err)
	require.NotContains(t, counter, "needed", "the counter of the page after the last label: enough, or learning already")
	require.Contains(t, counter, itoa(succeeded)+" succeeded")
	stored := labelsStored(t, b, id)
	require.Len(t, stored, len(labelled), "every key press a label")
	for cid := range labelled {
		require.Equal(t, truth[cid]+"/"+truth[cid], stored[cid], cid)
	}

	// The task page says while the detector learns, and shows the run scored by it
	// when it is done, by itself.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(b.url+"/tasks/"+id.String()),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="failure-source"]`)),
		chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`),
	))
	browsertest.WaitFor(t, ctx, `document.querySelector('[data-testid="failure-source"]').textContent.includes("Airline agent's detector, version 1")`, 2*time.Minute)
	same, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.sameDocument === true && document.querySelector('[data-testid="learning-pending"]') === null`))
	require.NoError(t, err)
	require.True(t, same, "the page took the new scores in without a reload, and the notice is gone")
	browsertest.Screenshot(t, ctx, "scored")
	r := taskReport(t, b.alice.browser, id)
	require.NotNil(t, r.FailureModel)
	require.Equal(t, len(labelled), r.FailureModel.TrainedOn)

	// A label button of the list swaps its cell and the counter.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(list),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="conversation-row"]`)),
	))
	seq, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="conversation-row"]').dataset.seq`))
	require.NoError(t, err)
	row := `[data-testid="conversation-row"][data-seq="` + seq + `"]`
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(row+` [data-testid="label-failed"]`))))
	waitFor(t, ctx, `document.querySelector('`+row+` [data-testid="conversation-label"]').dataset.labelValue === 'failed' && `+
		`document.querySelector('[data-testid="label-counter"]').textContent.includes('from `+itoa(failed+1)+` failed')`)
	browsertest.Screenshot(t, ctx, "list-labelled")

	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="conversation-table"]`))))
	requireFitsTheScreen(t, ctx, "the list most useful to label")
	browsertest.Screenshot(t, ctx, "phone-to-label")
}
