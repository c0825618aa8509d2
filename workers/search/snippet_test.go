package search

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
)

// TestSnippetShowsTheMatch: a result quotes the first message that has a word the
// search looks for, as Query finds it: an English word by its stem's start, Chinese by
// its characters, a tool's name whole; never the system prompt.
func TestSnippetShowsTheMatch(t *testing.T) {
	t.Parallel()
	msgs := []transcript.Message{
		transcripttest.System("You handle refunds and 退款 requests."),
		transcripttest.User("Hi, my order never came."),
		transcripttest.Assistant("I'm sorry. Your order W1 was refunded yesterday, and the money is on its way back to your card."),
		transcripttest.User("我想申请退款，订单还没发货"),
		transcripttest.Call("c1", "get_order_details", `{"order_id":"W1"}`),
	}
	turn, quote := Snippet(msgs, "refunds")
	require.Equal(t, 3, turn)
	require.Contains(t, quote, "was refunded yesterday")
	require.Contains(t, msgs[2].Content, quote, "a quote of the message")

	turn, quote = Snippet(msgs, "退款")
	require.Equal(t, 4, turn)
	require.Equal(t, "我想申请退款，订单还没发货", quote)

	turn, quote = Snippet(msgs, "get_order_details")
	require.Equal(t, 5, turn)
	require.Contains(t, quote, "get_order_details")

	turn, quote = Snippet([]transcript.Message{transcripttest.User("Can the voucher apply to my order?")}, "applies")
	require.Equal(t, 1, turn, "a word whose stem the search starts with: apply, appli")
	require.Contains(t, quote, "apply")

	turn, quote = Snippet(msgs, "passport")
	require.Zero(t, turn)
	require.Empty(t, quote)

	// The same from the messages as stored, decoded only as far as the match.
	raw, err := json.Marshal(msgs)
	require.NoError(t, err)
	for _, q := range []string{"refunds", "退款", "get_order_details", "passport"} {
		wantTurn, wantQuote := Snippet(msgs, q)
		gotTurn, gotQuote, err := SnippetOfJSON(string(raw), q)
		require.NoError(t, err)
		require.Equal(t, wantTurn, gotTurn, q)
		require.Equal(t, wantQuote, gotQuote, q)
	}
	_, _, err = SnippetOfJSON(`[{"role": "user", "content": 7}]`, "refund")
	require.NoError(t, err, "nothing looked for is there: not decoded")
	_, _, err = SnippetOfJSON(`[{"role": "user", "content": 7, "x": "refund"}]`, "refund")
	require.Error(t, err, "a message that cannot be read is an error")
}
