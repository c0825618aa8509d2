package web_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/web/browsertest"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
)

// TestTopActionsShowTheirEvidenceInBrowser reads, as a PM would in Chromium, the first
// three Actions of each shipped set uploaded without its labels: each says what its
// rank rests on, and each of its examples is the exchange that shows the problem, who
// said what turn by turn, with a link to each turn — a tool call named, never printed
// as its serialized arguments (only the argument that shows the problem, beside the
// tool's name), a tool's result with the tool it came from, no quote cut on a word
// that leads into what was cut, and a quote that stops where its turn goes on ending
// in “…”, and each example opening with what it is said to show. Each card is saved as a screenshot for a reader to judge.
func TestTopActionsShowTheirEvidenceInBrowser(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	sets := map[string][]transcript.Conversation{"airline": transcripttest.Sample(t)}
	for _, l := range transcripttest.LabelledSet(t, transcripttest.Retail) {
		sets["retail"] = append(sets["retail"], l.Conversation)
	}
	ctx := browsertest.Start(t, 2*time.Minute)
	browserSession(t, ctx, b.url, b.alice)
	serialized := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\(\{`)
	dangling := regexp.MustCompile(`(?i)\b(and|the|to|of|for|with|my|your|there)…?$`)
	cuts := 0 // quotes shown as stopping where their turn goes on
	for _, name := range []string{"airline", "retail"} {
		id := b.diagnose(t, b.alice, name+" agent", sets[name])
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.url+"/tasks/"+id.String()),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="action"]`))))
		cards, err := chromedp.Run(ctx, chromedp.Evaluate[[]struct {
			Title    string   `json:"title"`
			Support  string   `json:"support"`
			Quotes   []string `json:"quotes"`
			Calls    []string `json:"calls"`
			Results  []string `json:"results"`
			Lines    int      `json:"lines"`
			Examples int      `json:"examples"`
			Shows    []string `json:"shows"`
		}](`[...document.querySelectorAll('[data-testid="action"]')].slice(0, 3).map(a => ({
			title: a.querySelector('[data-testid="action-title"]').textContent,
			support: a.querySelector('[data-testid="support-words"]').textContent,
			quotes: [...a.querySelectorAll('[data-testid="evidence-quote"]')].map(q => q.textContent),
			calls: [...a.querySelectorAll('[data-testid="evidence-call"]')].map(q => q.textContent.trim()),
			results: [...a.querySelectorAll('[data-testid="evidence-exchange"] > li[data-speaker="tool"] > a')].map(q => q.textContent.trim()),
			lines: a.querySelectorAll('[data-testid="evidence-exchange"] > li').length,
			examples: a.querySelectorAll('[data-testid="evidence"]').length,
			shows: [...a.querySelectorAll('[data-testid="evidence"]')].map(e => e.querySelector('[data-testid="evidence-shows"]')?.textContent ?? ''),
		}))`))
		require.NoError(t, err)
		require.Len(t, cards, 3, name)
		for i, c := range cards {
			what := fmt.Sprintf("%s #%d %s", name, i+1, c.Title)
			require.NotEmpty(t, c.Support, what)
			require.Positive(t, c.Examples, what)
			for _, shows := range c.Shows {
				require.Regexp(t, `^This example: \S.{20,}`, shows, "%s: each example says what it shows", what)
			}
			for _, q := range c.Quotes {
				require.NotRegexp(t, serialized, q, "%s: a serialized tool call", what)
				said, cut := strings.CutSuffix(strings.TrimSpace(q), " …")
				require.NotRegexp(t, dangling, said, "%s: a quote cut mid-phrase", what)
				cuts += boolInt(cut)
			}
			for _, call := range c.Calls {
				require.Regexp(t, `^calls [A-Za-z_][A-Za-z0-9_]*(( with| again with the same arguments as at turn \d+:) ("[A-Za-z_]+":|\{).*| again with the same arguments as at turn \d+)?$`, call, what)
				cuts += boolInt(strings.HasSuffix(call, " …"))
			}
			for _, result := range c.Results {
				require.Regexp(t, `^Tool result of [A-Za-z_][A-Za-z0-9_]*, turn \d+$`, result, what)
			}
			t.Logf("%s: %s — %d examples, %d exchange lines", what, c.Support, c.Examples, c.Lines)
			png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(fmt.Sprintf(`[data-testid="action"][data-rank="%d"]`, i+1))))
			require.NoError(t, err)
			path := filepath.Join(browsertest.ArtifactsDir(t), fmt.Sprintf("%s-action-%d.png", name, i+1))
			require.NoError(t, os.WriteFile(path, png, 0o644))
			t.Logf("screenshot: %s", path)
		}
	}
	require.Positive(t, cuts, "an agent's reply cut before its end, or a list of arguments left open, ends in …")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
