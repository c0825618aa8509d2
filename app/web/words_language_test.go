package web_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/db/transcript"
)

// chineseFalseSuccess is a Chinese chat in which a tool fails and the agent tells the
// user it succeeded, the n-th of its kind.
func chineseFalseSuccess(n int) transcript.Conversation {
	return transcript.Conversation{ID: fmt.Sprintf("zh-fs-%d", n), Messages: []transcript.Message{
		{Role: transcript.RoleSystem, Content: "你是网店的客服助手。"},
		{Role: transcript.RoleUser, Content: fmt.Sprintf("帮我把订单 %d 改成次日达", n)},
		{Role: transcript.RoleAssistant, Content: "好的，马上为您修改。", ToolCalls: []transcript.ToolCall{{ID: "c1", Name: "update_order", Arguments: fmt.Sprintf(`{"order":%d}`, n)}}},
		{Role: transcript.RoleTool, ToolCallID: "c1", Content: "Error: 订单已发货，无法修改"},
		{Role: transcript.RoleAssistant, Content: "已经为您修改成功！"},
		{Role: transcript.RoleUser, Content: "好的谢谢"},
	}}
}

// readIn reads path as a browser asking for language would.
func readIn(t *testing.T, who *authtest.Client, path, language string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, who.BaseURL+path, nil)
	require.NoError(t, err)
	req.Header.Set("Accept-Language", language)
	resp := who.Send(t, req)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return authtest.Body(t, resp)
}

// TestOfflineDiagnosisReadsInTheReadersLanguage: one offline diagnosis of Chinese chats
// reads in Chinese for a reader whose browser asks for Chinese — its issues, Actions,
// findings and summaries — with the conversations' words quoted as they were said, and
// in English for an English reader.
func TestOfflineDiagnosisReadsInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	var convs []transcript.Conversation
	for i := 1; i <= 6; i++ {
		convs = append(convs, chineseFalseSuccess(i))
	}
	id := b.diagnose(t, b.alice, "退款客服", convs)
	task := "/tasks/" + id.String()

	zh := readIn(t, b.alice, task, "zh-CN,zh;q=0.9")
	require.Contains(t, zh, `<html lang="zh-CN"`)
	require.Contains(t, zh, "让智能体在确认成功之前先检查工具结果", "the Action's title")
	require.Contains(t, zh, "工具调用失败后，智能体仍声称成功", "the issue's title")
	require.Contains(t, zh, "在系统提示词中加入：", "the Action's steps")
	require.Contains(t, zh, `<blockquote data-testid="evidence-quote" lang="zh">已经为您修改成功！</blockquote>`, "the example is quoted as it was said, marked Chinese")
	require.NotContains(t, zh, "Make the agent check tool results before confirming success")
	require.NotContains(t, zh, "Agent claims success after a failed tool call")

	en := readIn(t, b.alice, task, "en-US,en;q=0.9")
	require.Contains(t, en, `<html lang="en"`)
	require.Contains(t, en, "Make the agent check tool results before confirming success")
	require.Contains(t, en, "Agent claims success after a failed tool call")
	require.NotContains(t, en, "让智能体在确认成功之前先检查工具结果")

	conv := task + "/conversations/1"
	zhConv := readIn(t, b.alice, conv, "zh-CN")
	require.Contains(t, zhConv, "update_order 在第 4 轮失败（“Error: 订单已发货，无法修改”），但智能体在第 5 轮告诉用户已经成功。")
	require.Contains(t, zhConv, "一段共 6 轮的对话")
	enConv := readIn(t, b.alice, conv, "en")
	require.Contains(t, enConv, "update_order failed at turn 4 (“Error: 订单已发货，无法修改”), yet at turn 5 the agent told the user it had succeeded.")

	list := readIn(t, b.alice, task+"/conversations", "zh-CN")
	require.Contains(t, list, "工具调用失败后，智能体仍声称成功", "the list's top finding")
	require.Contains(t, list, "风险：工具调用失败后，智能体仍声称成功（6）", "the issue filter's option, its kind and title")
	require.NotContains(t, list, "Agent claims success after a failed tool call")
	filtered := readIn(t, b.alice, task+"/conversations?cluster=0", "zh-CN")
	require.Contains(t, filtered, "问题：工具调用失败后，智能体仍声称成功", "what the list is restricted to")
	require.Contains(t, readIn(t, b.alice, task+"/conversations", "en"), "RISK: Agent claims success after a failed tool call (6)")
}

// TestReportDownloadsInTheReadersLanguage: report.md is written in the reader's
// language, or the one ?lang= asks for, an unknown one refused; the CSV and JSON files
// keep their English identifiers, whoever reads them.
func TestReportDownloadsInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	var convs []transcript.Conversation
	for i := 1; i <= 6; i++ {
		convs = append(convs, chineseFalseSuccess(i))
	}
	task := "/tasks/" + b.diagnose(t, b.alice, "退款客服", convs).String()

	zh := readIn(t, b.alice, task+"/report.md", "zh-CN")
	require.Contains(t, zh, "## 行动建议，最紧急的在前")
	require.Contains(t, zh, "### 1. [风险] 让智能体在确认成功之前先检查工具结果")
	require.Contains(t, zh, "**简而言之：** 上传了 6 个对话")
	require.Contains(t, zh, "`已经为您修改成功！`", "the quotes as they were said")
	require.Equal(t, zh, readIn(t, b.alice, task+"/report.md?lang=zh-CN", "en"), "?lang= chooses over the browser")

	en := readIn(t, b.alice, task+"/report.md?lang=en", "zh-CN")
	require.Contains(t, en, "## Actions, most urgent first")
	require.Contains(t, en, "### 1. [RISK] Make the agent check tool results before confirming success")
	require.NotRegexp(t, `\p{Han}`, strings.NewReplacer("退款客服", "", "订单已发货，无法修改", "", "已经为您修改成功！", "", "好的谢谢", "",
		"帮我把订单", "", "改成次日达", "", "好的，马上为您修改。", "").Replace(en), "English but for the conversations' words")

	req, err := http.NewRequest(http.MethodGet, b.alice.BaseURL+task+"/report.md?lang=fr", nil)
	require.NoError(t, err)
	resp := b.alice.Send(t, req)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, authtest.Body(t, resp), `The report is written in en or zh-CN, not "fr"`)

	generated := regexp.MustCompile(`"generated_at": "[^"]*"`) // the moment it was written
	for _, file := range []string{"/actions.csv", "/findings.csv", "/labels.csv", "/report.json"} {
		require.Equal(t, generated.ReplaceAllString(readIn(t, b.alice, task+file, "en"), ""),
			generated.ReplaceAllString(readIn(t, b.alice, task+file, "zh-CN"), ""), file+" is the same in every language")
	}
	require.True(t, strings.HasPrefix(readIn(t, b.alice, task+"/actions.csv", "zh-CN"), "\ufeffrank,type,category,title,"), "English column names")
}
