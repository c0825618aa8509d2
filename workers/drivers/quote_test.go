package drivers_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/drivers"
)

func TestQuoteShowsWhereAWordDriverIsWritten(t *testing.T) {
	t.Parallel()
	conv := transcript.Conversation{Messages: []transcript.Message{
		{Role: transcript.RoleSystem, Content: "Ask for the travel date first."},
		{Role: transcript.RoleUser, Content: "I need to move my flight, the Date is wrong."},
		{Role: transcript.RoleAssistant, Content: "Sure. What new date would you like to fly on? I can check seats."},
		{Role: transcript.RoleAssistant, Content: "Your travel, date and seat are set."},
	}}
	quote := func(kind, name string) (int, string, bool) {
		return drivers.Quote(drivers.Feature{Kind: kind, Name: name}, conv)
	}
	turn, q, ok := quote(drivers.KindAgentWords, "date")
	require.True(t, ok)
	require.Equal(t, 3, turn, "the agent's first turn with the word; the system prompt and the user's turn are not the agent's")
	require.Equal(t, "Sure. What new date would you like to fly on? I can check seats.", q)

	turn, q, ok = quote(drivers.KindUserWords, "date")
	require.True(t, ok)
	require.Equal(t, 2, turn, "in any case")
	require.Contains(t, q, "the Date is wrong")

	turn, _, ok = quote(drivers.KindAgentWords, "new date")
	require.True(t, ok)
	require.Equal(t, 3, turn, "a pair side by side")
	turn, _, ok = quote(drivers.KindAgentWords, "travel date")
	require.True(t, ok)
	require.Equal(t, 4, turn, "a pair split by a comma falls back to its first word")

	zh := transcript.Conversation{Messages: []transcript.Message{
		{Role: transcript.RoleUser, Content: "我想办理退货。"},
		{Role: transcript.RoleUser, Content: "请帮我办理退款，谢谢。"},
	}}
	turn, q, ok = drivers.Quote(drivers.Feature{Kind: drivers.KindUserWords, Name: "理退 退款"}, zh)
	require.True(t, ok)
	require.Equal(t, 2, turn, "a Chinese pair is found where its characters run together, not at its first pair alone")
	require.Equal(t, "请帮我办理退款，谢谢。", q)

	_, _, ok = quote(drivers.KindAgentWords, "refund")
	require.False(t, ok)
	_, _, ok = quote(drivers.KindTool, "get_order")
	require.False(t, ok, "only words are quoted")
	_, _, ok = quote(drivers.KindAgentWords, "dat")
	require.False(t, ok, "a whole word, not a part of one")
}
