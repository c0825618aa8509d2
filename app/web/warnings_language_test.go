package web_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/web/browsertest"
	"github.com/checkup-dev/checkup/db/transcript"
)

// The risk stage's warning on a diagnosis of six conversations, as each reader reads it.
const (
	smallSampleEnglish = "Only 6 conversations are analyzed, so each one moves a share by 17 points: read the shares, " +
		"the failure rates and the order of the Actions as rough. At least 30 give steadier figures, a few hundred good ones."
	smallSampleChinese = "只分析了 6 个对话，每个对话都会让占比变动 17 个百分点：请把占比、失败率和行动建议的顺序看作粗略的结果。" +
		"至少 30 个对话能得到更稳定的数字，几百个则更好。"
	// storedBefore is a warning stored in words only, as before their messages were kept.
	storedBefore = "Conversation c3: 2 findings beyond the first 8 were dropped."
)

// TestWarningsReadInTheReadersLanguage: the warning the risk stage gives a diagnosis
// of six conversations reads in Chinese on the task page in headless Chromium and in
// report.md for a reader who asks for Chinese, and as it always read for an English
// reader; report.json keeps the English for both. A warning stored before the messages
// were kept shows its stored words to both.
func TestWarningsReadInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	var convs []transcript.Conversation
	for i := 1; i <= 6; i++ {
		convs = append(convs, chineseFalseSuccess(i))
	}
	id := b.diagnose(t, b.alice, "退款客服", convs)
	_, err := b.pool.Exec(context.Background(), `INSERT INTO task_warning (task_id, owner_user_id, stage, scope, message)
		VALUES ($1, $2, 'diagnosis', 'conversation c3', $3)`, id, b.alice.Owner().UserID(), storedBefore)
	require.NoError(t, err)
	task := "/tasks/" + id.String()

	ctx := browsertest.Start(t, 2*time.Minute)
	askFor(t, ctx, "zh-CN,zh;q=0.9")
	browserSession(t, ctx, b.url, b.alice)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.url+task), chromedp.WaitVisible(chromedp.CSS(`[data-testid="warnings"]`))))
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('[data-testid="warning"]')].map(e => e.innerText.trim())`))
	require.NoError(t, err)
	require.Equal(t, []string{"风险筛查：" + smallSampleChinese, "诊断对话 (conversation c3)：" + storedBefore}, shown)
	browsertest.Screenshot(t, ctx, "warnings")

	require.Contains(t, readIn(t, b.alice, task+"/report.md", "zh-CN"), "- 风险筛查: "+smallSampleChinese+"\n")
	en := readIn(t, b.alice, task, "en")
	require.Contains(t, en, smallSampleEnglish)
	require.NotContains(t, en, smallSampleChinese)
	require.Contains(t, en, storedBefore)
	md := readIn(t, b.alice, task+"/report.md", "en")
	require.Contains(t, md, "- Risk screening: "+smallSampleEnglish+"\n")
	require.Contains(t, md, "- Diagnosing conversations (conversation c3): "+storedBefore+"\n")

	for _, language := range []string{"zh-CN", "en"} {
		var r struct {
			Warnings []struct {
				Stage, Scope, Message string
			} `json:"warnings"`
		}
		require.NoError(t, json.Unmarshal([]byte(readIn(t, b.alice, task+"/report.json", language)), &r))
		require.Len(t, r.Warnings, 2, language)
		require.Equal(t, "risk", r.Warnings[0].Stage)
		require.Equal(t, smallSampleEnglish, r.Warnings[0].Message, "report.json keeps the English for a reader in %s", language)
	}
}
