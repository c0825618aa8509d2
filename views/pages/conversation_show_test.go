package pages_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/views/pages"
)

func conversationView(userText string) pages.ConversationView {
	msgs := []transcript.Message{
		{Role: transcript.RoleSystem, Content: "You are an airline agent."},
		{Role: transcript.RoleUser, Content: userText},
		{Role: transcript.RoleAssistant, Content: "Let me check.", ToolCalls: []transcript.ToolCall{{ID: "call_1", Name: "get_booking", Arguments: `{"id":"ABC"}`}}},
		{Role: transcript.RoleTool, ToolCallID: "call_1", Content: `{"error":"not found"}`},
		{Role: transcript.RoleAssistant, Content: "Done, your booking is changed."},
	}
	findings := []report.Finding{{ConversationSeq: 3, Type: "ACTION", Category: "false_success_claim", Title: "Claims success after a tool error",
		Severity: 4, Evidence: []report.Evidence{{Turn: 4, Quote: "not found", Verified: true}, {Turn: 5, Quote: "your booking is changed", Verified: true}}}}
	flags := []report.RiskFlag{{Kind: "tool_error", Turn: 4, Quote: `"error"`, CutAfter: true}}
	return pages.ConversationView{TaskID: taskID, TaskTitle: "Support bot", Seq: 3, ExternalID: "c3", QCStatus: "kept",
		DiagnosisStatus: "done", Outcome: "unresolved", Flags: flags, Findings: findings, Turns: pages.Messages(msgs, findings, flags)}
}

func TestConversationPage(t *testing.T) {
	t.Parallel()
	doc, _ := render(t, pages.ConversationShow(page, conversationView("Please change my flight.")))

	require.Equal(t, "Conversation c3 (#3)", testid(doc, "conversation-title").Text())
	var zh bytes.Buffer
	require.NoError(t, pages.ConversationShow(page, conversationView("请帮我改签。")).Render(localetest.Context(localetest.Chinese(t)), &zh))
	require.Contains(t, zh.String(), "对话 c3（#3）", "full-width brackets in Chinese")
	turns := testid(doc, "turn")
	require.Equal(t, 5, turns.Length())
	for i := range 5 {
		require.Equal(t, "turn-"+string(rune('1'+i)), turns.Eq(i).AttrOr("id", ""))
	}
	evidence := doc.Find(`.turn.evidence`)
	require.Equal(t, 2, evidence.Length(), "turns 4 and 5 are quoted")
	require.Equal(t, "turn-4", evidence.Eq(0).AttrOr("id", ""))
	require.Equal(t, "turn-5", evidence.Eq(1).AttrOr("id", ""))
	require.Equal(t, "your booking is changed", evidence.Eq(1).Find(`[data-testid="evidence-mark"]`).Text())
	require.Equal(t, "not found", evidence.Eq(0).Find(`mark`).Text())

	call := testid(doc, "tool-call")
	require.Equal(t, 1, call.Length())
	_, open := call.Attr("open")
	require.False(t, open, "tool calls are folded")
	require.Contains(t, call.Find("summary").Text(), "get_booking")
	_, open = testid(doc, "system-prompt").Attr("open")
	require.False(t, open, "the system prompt is folded")
	_, open = testid(doc, "tool-result").Attr("open")
	require.True(t, open, "a quoted tool result is opened to show the quote")
	require.Equal(t, "of get_booking", strings.Join(strings.Fields(testid(doc, "tool-result-of").Text()), " "), "a result names its call's tool, not the call's id")
	require.Equal(t, "call_1", testid(doc, "tool-result").Find("summary").AttrOr("title", ""))

	require.Equal(t, 1, testid(doc, "finding").Length())
	require.Equal(t, "#turn-4", testid(doc, "finding-evidence-link").First().AttrOr("href", ""))
	require.Contains(t, testid(doc, "risk-flag").Text(), "Tool errors")
	require.Contains(t, testid(doc, "risk-flag").Text(), `"error"…`, "a quote cut mid-sentence says so")
	require.Equal(t, "Kept for analysis.", testid(doc, "qc-status").Text())
	require.Equal(t, "/tasks/"+taskID, testid(doc, "back-to-task").AttrOr("href", ""))
}

// TestASetAsideConversationSaysWhy: a conversation the quality checks set aside says
// which check and why, and that this is why it was not diagnosed; one outside the
// sample says that instead.
func TestASetAsideConversationSaysWhy(t *testing.T) {
	t.Parallel()
	v := conversationView("Please change my flight.")
	v.QCStatus, v.QCReason, v.DiagnosisStatus, v.Findings = "duplicate", "duplicate of cn-025", "skipped", nil
	doc, _ := render(t, pages.ConversationShow(page, v))
	require.Equal(t, "Set aside as a duplicate: duplicate of cn-025", strings.TrimSpace(testid(doc, "qc-status").Text()))
	require.Equal(t, "Not diagnosed: the quality checks set it aside.", testid(doc, "diagnosis-status").Text())

	v.QCStatus, v.QCReason = "kept", ""
	doc, _ = render(t, pages.ConversationShow(page, v))
	require.Equal(t, "Not diagnosed: outside the sample chosen for this diagnosis.", testid(doc, "diagnosis-status").Text())
}

// A cited tool call lands open, with the quoted arguments marked, and its result opens
// next to it; a tool result answering another call stays folded.
func TestConversationPageOpensACitedToolCall(t *testing.T) {
	t.Parallel()
	msgs := []transcript.Message{
		{Role: transcript.RoleUser, Content: "Upgrade me."},
		{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{{ID: "call_1", Name: "update", Arguments: `{"cabin": "economy"}`}}},
		{Role: transcript.RoleTool, ToolCallID: "call_1", Content: `{"cabin":"business"}`},
		{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{{ID: "call_2", Name: "other", Arguments: `{}`}}},
		{Role: transcript.RoleTool, ToolCallID: "call_2", Content: `{}`},
	}
	findings := []report.Finding{{ConversationSeq: 1, Type: "ACTION", Title: "Wrong cabin",
		Evidence: []report.Evidence{{Turn: 2, Quote: `update({"cabin": "economy"`, Verified: true}}}}
	v := pages.ConversationView{TaskID: taskID, Seq: 1, Findings: findings, Turns: pages.Messages(msgs, findings, nil)}
	doc, _ := render(t, pages.ConversationShow(page, v))

	calls := testid(doc, "tool-call")
	_, open := calls.Eq(0).Attr("open")
	require.True(t, open, "the cited call is open on arrival")
	require.Equal(t, `{"cabin": "economy"`, calls.Eq(0).Find("mark").Text())
	_, open = calls.Eq(1).Attr("open")
	require.False(t, open)

	results := testid(doc, "tool-result")
	_, open = results.Eq(0).Attr("open")
	require.True(t, open, "the cited call's result is open next to it")
	require.True(t, doc.Find("#turn-3").HasClass("evidence-related"))
	require.Equal(t, 1, testid(doc, "related-marker").Length())
	_, open = results.Eq(1).Attr("open")
	require.False(t, open)
}

func TestConversationPageShowsTheEstimateTheLabelAndExpectedBehaviour(t *testing.T) {
	t.Parallel()
	v := conversationView("Please change my flight.")
	score := 0.82
	v.FailureScore, v.FailedTurn = &score, 4
	v.QCStatus, v.Labels = "kept", pages.LabelState{Label: "failed", Source: "upload"}
	v.Findings = append(v.Findings, report.Finding{Type: "ACTION", Category: "refusal", Title: "Agent says a request cannot be done because its policy rules it out",
		Severity: 1, Expected: true, Policy: "Basic fares cannot be changed.", Evidence: []report.Evidence{{Turn: 5, Quote: "Done"}}})
	doc, _ := render(t, pages.ConversationShow(page, v))

	require.Contains(t, testid(doc, "estimated-outcome").Text(), "Likely failed")
	require.Contains(t, strings.Join(strings.Fields(testid(doc, "estimated-outcome").Text()), " "),
		"Likely failed (failure score 0.82); things first went wrong at turn 4", "no space before the semicolon")
	require.Equal(t, "#turn-4", testid(doc, "failed-turn").AttrOr("href", ""))
	require.Contains(t, strings.Join(strings.Fields(testid(doc, "label-state").Text()), " "), "failed as the upload recorded it")
	require.Equal(t, 1, testid(doc, "finding-expected").Length())
	require.Equal(t, "Basic fares cannot be changed.", testid(doc, "finding-policy").Text())

	v.FailureScore, v.Labels = nil, pages.LabelState{}
	doc, _ = render(t, pages.ConversationShow(page, v))
	require.Zero(t, testid(doc, "estimated-outcome").Length(), "nothing estimated before the diagnosis")
	require.Contains(t, testid(doc, "label-state").Text(), "No outcome label yet")
}

// TestToolResultsNameTheirTool: a result names the call it answers by its id, else by
// its own name, else as the one call of the agent's turn before it; with several
// calls and no id it names none.
func TestToolResultsNameTheirTool(t *testing.T) {
	t.Parallel()
	call := func(id, name string) transcript.ToolCall {
		return transcript.ToolCall{ID: id, Name: name, Arguments: "{}"}
	}
	msgs := []transcript.Message{
		{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{call("a", "get_user"), call("b", "get_order")}},
		{Role: transcript.RoleTool, ToolCallID: "b", Content: "{}"},
		{Role: transcript.RoleTool, Name: "get_user", Content: "{}"},
		{Role: transcript.RoleTool, Content: "{}"},
		{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{call("", "cancel")}},
		{Role: transcript.RoleTool, Content: "{}"},
	}
	var tools []string
	for _, turn := range pages.Messages(msgs, nil, nil) {
		tools = append(tools, turn.Tool)
	}
	require.Equal(t, []string{"", "get_order", "get_user", "", "", "cancel"}, tools)
}

// TestConversationPageListsAFindingsQuotesInTurnOrder: a finding that cites an error
// before the call that caused it lists its quotes as the conversation has them.
func TestConversationPageListsAFindingsQuotesInTurnOrder(t *testing.T) {
	t.Parallel()
	v := conversationView("Please change my flight.")
	v.Findings = []report.Finding{{ConversationSeq: 1, Type: "ACTION", Title: "Agent retries a failing tool call unchanged",
		Evidence: []report.Evidence{{Turn: 3, Quote: "Error"}, {Turn: 4, Quote: `"flight":"HAT1"`}, {Turn: 2, Quote: `"flight":"HAT1"`}}}}
	doc, _ := render(t, pages.ConversationShow(page, v))
	var turns []string
	testid(doc, "finding-evidence-link").Each(func(_ int, s *goquery.Selection) { turns = append(turns, s.Text()) })
	require.Equal(t, []string{"Turn 2", "Turn 3", "Turn 4"}, turns)
}
