package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/web/browsertest"
	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/views/pages"
)

// chineseUpload is thirty Chinese support chats: one in three a tool fails and the
// agent says it succeeded, the others a question answered after a look-up.
func chineseUpload() []transcript.Conversation {
	asks := []string{"我想申请退款，订单还没发货", "请帮我查一下物流", "退款什么时候到账？", "这个商品可以退款吗", "怎么修改收货地址", "发票怎么开"}
	var convs []transcript.Conversation
	for i := 1; i <= 30; i++ {
		if i%3 == 0 {
			convs = append(convs, chineseFalseSuccess(i))
			continue
		}
		convs = append(convs, transcript.Conversation{ID: fmt.Sprintf("zh-%d", i), Messages: []transcript.Message{
			{Role: transcript.RoleSystem, Content: "你是网店的客服助手。"},
			{Role: transcript.RoleUser, Content: asks[i%len(asks)]},
			{Role: transcript.RoleAssistant, Content: "好的，我来帮您查询。", ToolCalls: []transcript.ToolCall{{ID: "c1", Name: "query_order", Arguments: fmt.Sprintf(`{"order":%d}`, i)}}},
			{Role: transcript.RoleTool, ToolCallID: "c1", Content: `{"status": "已付款"}`},
			{Role: transcript.RoleAssistant, Content: fmt.Sprintf("您的订单 %d 状态是已付款。还有什么可以帮您？", i)},
			{Role: transcript.RoleUser, Content: "没有了，谢谢"},
		}})
	}
	return convs
}

// openAIJSONL writes conversations as an OpenAI chat export, one per line.
func openAIJSONL(t *testing.T, convs []transcript.Conversation) string {
	t.Helper()
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	type message struct {
		Role       string `json:"role"`
		Content    string `json:"content"`
		ToolCalls  []call `json:"tool_calls,omitempty"`
		ToolCallID string `json:"tool_call_id,omitempty"`
	}
	var b strings.Builder
	for _, c := range convs {
		var msgs []message
		for _, m := range c.Messages {
			msg := message{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
			for _, tc := range m.ToolCalls {
				var x call
				x.ID, x.Type, x.Function.Name, x.Function.Arguments = tc.ID, "function", tc.Name, tc.Arguments
				msg.ToolCalls = append(msg.ToolCalls, x)
			}
			msgs = append(msgs, msg)
		}
		line, err := json.Marshal(map[string]any{"id": c.ID, "messages": msgs})
		require.NoError(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "客服导出.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// askFor makes the tab's requests ask for language, as a browser set to it does.
func askFor(t *testing.T, ctx context.Context, language string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": language}})
		return err
	})))
}

// englishSentence is three or more English words in a row: a sentence or a phrase a
// reader reads, not a name or an identifier.
var englishSentence = regexp.MustCompile(`[A-Za-z][A-Za-z'’]+(?:[ ,:;]+[A-Za-z][A-Za-z'’]+){2,}`)

// readsInChinese requires the page in the tab to be the Chinese one: <html lang>, and
// no English sentence in what it shows outside the conversations' own words (quotes,
// the transcript's turns, code) and the names people gave (titles, agents, users).
func readsInChinese(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	got, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
		Lang string `json:"lang"`
		Text string `json:"text"`
	}](`(() => {
		const data = 'blockquote, q, code, pre, kbd, script, style, title, .transcript .text, option, ' +
			'[data-testid="task-title"], [data-testid="current-user"], [data-testid="task-agent"] a, h1, ' +
			'[data-testid="conversation-link"], [data-testid="evidence-link"], [data-testid="conversation-snippet"]';
		const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
		const parts = [];
		for (let n = walk.nextNode(); n; n = walk.nextNode()) {
			const e = n.parentElement;
			if (e && !e.closest(data) && e.getClientRects().length) parts.push(n.textContent);
		}
		for (const e of document.querySelectorAll('[title], [placeholder], [aria-label]')) {
			if (!e.closest(data)) parts.push(e.getAttribute('title') || '', e.getAttribute('placeholder') || '', e.getAttribute('aria-label') || '');
		}
		return {lang: document.documentElement.lang, text: parts.join('\n')};
	})()`))
	require.NoError(t, err, page)
	require.Equal(t, "zh-CN", got.Lang, page)
	text := got.Text
	for _, f := range pages.UploadFormats() { // the formats' names, as their makers spell them
		text = strings.ReplaceAll(text, f.Name(localetest.Chinese(t)), "")
	}
	require.Empty(t, englishSentence.FindAllString(text, 10), "%s: English left on the page", page)
	require.Regexp(t, `\p{Han}{4}`, got.Text, page)
}

// TestThePMsLoopInChineseInBrowser clicks through the PM's loop in headless Chromium
// asking for Chinese (Accept-Language: zh-CN): the list, the upload of a Chinese
// export, its diagnosis, the conversation list and a conversation, the comparison with
// the run before and the settings, at 1280 px and on a 390 px phone; every page is
// <html lang="zh-CN"> with no English sentence outside the data, and each is saved as a
// screenshot.
func TestThePMsLoopInChineseInBrowser(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	convs := chineseUpload()
	before := b.diagnose(t, b.alice, "网店客服", convs)
	file := openAIJSONL(t, convs)
	ctx := browsertest.Start(t, 4*time.Minute)
	askFor(t, ctx, "zh-CN,zh;q=0.9")
	browserSession(t, ctx, b.url, b.alice)

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.url+"/tasks"), chromedp.WaitVisible(chromedp.CSS(`main`))))
	readsInChinese(t, ctx, "the list")
	browsertest.Screenshot(t, ctx, "list")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`header.site nav a[href="/tasks/new"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-form"]`)),
	))
	readsInChinese(t, ctx, "the upload page")
	browsertest.Screenshot(t, ctx, "upload")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`[data-testid="upload-title"]`), "网店客服"),
		chromedp.SetUploadFiles(chromedp.CSS(`[data-testid="upload-file"]`), []string{file}),
		chromedp.Click(chromedp.CSS(`[data-testid="upload-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="task-page"]`)),
	))
	browsertest.WaitFor(t, ctx, `document.querySelector('[data-testid="task-page"]').dataset.status === 'completed'`, 2*time.Minute)
	task, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	task = strings.TrimPrefix(strings.SplitN(task, "#", 2)[0], b.url)
	require.NotEqual(t, "/tasks/"+before.String(), task, "a new diagnosis")
	readsInChinese(t, ctx, "the task page")
	title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="action-title"]`)))
	require.NoError(t, err)
	require.Equal(t, "让智能体在确认成功之前先检查工具结果", title)
	browsertest.Screenshot(t, ctx, "task")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="all-conversations"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="conversation-table"]`)),
	))
	readsInChinese(t, ctx, "the conversation list")
	browsertest.Screenshot(t, ctx, "conversations")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="conversation-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="transcript"]`)),
	))
	readsInChinese(t, ctx, "a conversation")
	browsertest.Screenshot(t, ctx, "conversation")

	pages := map[string]string{
		"compare":  task + "/compare?baseline=" + before.String(),
		"tokens":   "/settings/tokens",
		"expected": "/settings/expected",
	}
	for name, page := range pages {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.url+page), chromedp.WaitVisible(chromedp.CSS(`main`))))
		readsInChinese(t, ctx, name)
		browsertest.Screenshot(t, ctx, name)
	}

	pages["list"], pages["upload"], pages["task"] = "/tasks", "/tasks/new", task
	pages["conversations"], pages["conversation"] = task+"/conversations", task+"/conversations/1"
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)))
	for name, page := range pages {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.url+page), chromedp.WaitVisible(chromedp.CSS(`main`))))
		readsInChinese(t, ctx, "phone: "+name)
		labels := cellLabels(t, ctx, name)
		if name == "task" || name == "conversations" {
			require.NotEmpty(t, labels, "%s: on a phone its tables' cells carry their column's name", name)
		}
		for _, l := range labels {
			require.True(t, strings.HasSuffix(l, `："`), "phone: %s: a cell's label %s ends in a full-width colon", name, l)
		}
		requireFitsTheScreen(t, ctx, "phone: "+name)
		browsertest.Screenshot(t, ctx, "phone-"+name)
	}
}

// cellLabels is what the visible table cells of the page in the tab show before
// their value on a phone (a column's name and its colon, CSS content as written).
func cellLabels(t *testing.T, ctx context.Context, page string) []string {
	t.Helper()
	labels, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('td[data-label]')]
		.filter(e => e.getClientRects().length && e.textContent.trim())
		.map(e => getComputedStyle(e, '::before').content)`))
	require.NoError(t, err, page)
	return labels
}

// TestTheLanguageSwitchHoldsAcrossSignInInBrowser: an English browser chooses 中文 on
// the sign-in page, signs in and reads Chinese; a second browser of the same person,
// asking for English, reads Chinese once signed in, and English after it switches back.
func TestTheLanguageSwitchHoldsAcrossSignInInBrowser(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	signIn := func(ctx context.Context) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.CSS(`#name`), "林"),
			chromedp.SendKeys(chromedp.CSS(`#email`), "lin@example.com"),
			chromedp.Submit(chromedp.CSS(`[data-testid="local-sign-in"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="current-user"]`)),
		))
	}
	lang := func(ctx context.Context) string {
		t.Helper()
		l, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.lang`))
		require.NoError(t, err)
		return l
	}
	english := func(ctx context.Context) { t.Helper(); askFor(t, ctx, "en-US,en;q=0.9") }

	first := browsertest.Start(t, time.Minute)
	english(first)
	require.NoError(t, chromedp.Do(first, chromedp.Navigate(b.url+"/login"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="language-switch"]`))))
	require.Equal(t, "en", lang(first))
	require.NoError(t, chromedp.Do(first,
		chromedp.Click(chromedp.CSS(`[data-testid="language-zh-CN"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="language-en"]`)),
	))
	require.Equal(t, "zh-CN", lang(first))
	browsertest.Screenshot(t, first, "sign-in")
	signIn(first)
	require.Equal(t, "zh-CN", lang(first), "the choice made before sign-in holds after it")
	readsInChinese(t, first, "after sign-in")
	browsertest.Screenshot(t, first, "signed-in")

	second := browsertest.Start(t, time.Minute)
	english(second)
	require.NoError(t, chromedp.Do(second, chromedp.Navigate(b.url+"/login"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="local-sign-in"]`))))
	require.Equal(t, "en", lang(second), "a browser that never chose, before sign-in")
	signIn(second)
	require.Equal(t, "zh-CN", lang(second), "the choice is the person's, in every browser")
	require.NoError(t, chromedp.Do(second,
		chromedp.Click(chromedp.CSS(`[data-testid="language-en"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="language-zh-CN"]`)),
	))
	require.Equal(t, "en", lang(second))
	require.NoError(t, chromedp.Do(first, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid="current-user"]`))))
	require.Equal(t, "en", lang(first), "switched back for the person, in the other browser too")
}
