package llm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/transcript"
)

func TestRenderTurns(t *testing.T) {
	t.Parallel()
	conv := transcript.Conversation{ID: "c", Messages: []transcript.Message{
		{Role: transcript.RoleSystem, Content: strings.Repeat("policy ", 1000)},
		{Role: transcript.RoleUser, Content: "Cancel my trip"},
		{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{{Name: "get_reservation", Arguments: `{"id":"X1"}`}}},
		{Role: transcript.RoleTool, Name: "get_reservation", Content: ""},
		{Role: transcript.RoleAssistant, Content: "Checking.", ToolCalls: []transcript.ToolCall{{Name: "a", Arguments: "{}"}, {Name: "b", Arguments: "{}"}}},
	}}
	r := renderTranscript(conv)
	require.Equal(t, 5, r.Turns)
	require.Zero(t, r.Omitted)
	lines := strings.Split(r.Text, "\n")
	require.True(t, strings.HasPrefix(lines[0], "[1] system: policy policy"))
	require.True(t, strings.HasSuffix(lines[0], fmt.Sprintf("…[%d more characters]", 7000-systemRunes)))
	require.Equal(t, []string{
		"[2] user: Cancel my trip",
		`[3] assistant → tool get_reservation({"id":"X1"})`,
		"[4] tool(get_reservation): (empty)",
		"[5] assistant: Checking.",
		"    → tool a({})",
		"    → tool b({})",
	}, lines[1:])
}

func TestRenderTrimsLongConversationsKeepingEvidenceTurns(t *testing.T) {
	t.Parallel()
	conv := transcript.Conversation{ID: "long"}
	add := func(role transcript.Role, content string) {
		conv.Messages = append(conv.Messages, transcript.Message{Role: role, Content: content, Name: "tool_x"})
	}
	add(transcript.RoleSystem, "Be helpful.")
	add(transcript.RoleUser, "I need to change my booking")
	for i := range 60 {
		add(transcript.RoleAssistant, fmt.Sprintf("step %d ", i)+strings.Repeat("x", 900))
		if i == 20 {
			add(transcript.RoleTool, "Error: seat not available")
		} else {
			add(transcript.RoleUser, fmt.Sprintf("reply %d", i))
		}
	}
	errorTurn := 2 + 2*20 + 2 // system, first user, 20 pairs, then the assistant turn

	r := renderTranscript(conv)

	require.Equal(t, len(conv.Messages), r.Turns)
	require.Positive(t, r.Omitted)
	require.LessOrEqual(t, len([]rune(r.Text)), budgetRunes+2000, "only essential turns may exceed the budget")
	require.Contains(t, r.Text, "[1] system: Be helpful.")
	require.Contains(t, r.Text, "[2] user: I need to change my booking")
	require.Contains(t, r.Text, fmt.Sprintf("[%d] tool(tool_x): Error: seat not available", errorTurn))
	require.Contains(t, r.Text, fmt.Sprintf("[%d] assistant: step 20", errorTurn-1), "the call before the error")
	require.Contains(t, r.Text, fmt.Sprintf("[%d] assistant: step 21", errorTurn+1), "the turn after the error")
	last := len(conv.Messages)
	for n := last - tailTurns + 1; n <= last; n++ {
		require.Contains(t, r.Text, fmt.Sprintf("[%d] ", n), "tail turn %d", n)
	}
	require.Contains(t, r.Text, "[… turns 3–")
	require.NotContains(t, r.Text, "[3] ")

	shown := strings.Count(r.Text, "\n[") + 1 - strings.Count(r.Text, "[… ")
	require.Equal(t, r.Turns-r.Omitted, shown)
}

func TestCutCountsRunes(t *testing.T) {
	t.Parallel()
	require.Equal(t, "转人工", cut("转人工", 3))
	require.Equal(t, "转人 …[1 more characters]", cut("转人工", 2))
}
