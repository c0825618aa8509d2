package offline

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

func TestSentenceQuote(t *testing.T) {
	t.Parallel()
	quote := func(text, marker string, max int) string {
		i := strings.Index(text, marker)
		require.GreaterOrEqual(t, i, 0)
		q := sentenceQuote(text, i, i+len(marker), max)
		require.Contains(t, text, q)
		require.Contains(t, q, marker)
		require.LessOrEqual(t, utf8.RuneCountInString(q), max)
		return q
	}
	// The whole sentence holding the marker, never half of it.
	require.Equal(t, "Error: payment amount does not add up, total price is 305, but paid 300.",
		quote("Error: payment amount does not add up, total price is 305, but paid 300.", "Error", 200))
	require.Equal(t, "Your flight has been booked.",
		quote("Great news! Your flight has been booked.\nAnything else?", "has been booked", 40))
	// Following sentences on the same line join while they fit; a decimal point ends nothing.
	require.Equal(t, "I'm not sure about the $12.50 fee. Let me check.",
		quote("Hello there. I'm not sure about the $12.50 fee. Let me check.", "not sure", 200))
	require.Equal(t, "I'm not sure about the $12.50 fee.",
		quote("Hello there. I'm not sure about the $12.50 fee. Let me check.", "not sure", 40))
	// An abbreviation's stop, followed by a word in lower case, ends nothing.
	require.Equal(t, "You can provide order information, e.g. help the user look up an order id.",
		quote("Hello. You can provide order information, e.g. help the user look up an order id. Then ask.", "provide", 76))
	require.Equal(t, []string{"Once verified, share order details, e.g. the status.", "Then ask."},
		sentences("Once verified, share order details, e.g. the status. Then ask."))
	// A sentence ending its line with a colon brings the lines it introduces, while they fit.
	list := "You recently ordered three t-shirts:\n- blue, size M\n- red, size L\n- black, size S\nWhich one?"
	require.Equal(t, "You recently ordered three t-shirts:\n- blue, size M\n- red, size L\n- black, size S\nWhich one?",
		quote(list, "recently ordered", 200))
	require.Equal(t, "You recently ordered three t-shirts:\n- blue, size M\n- red, size L",
		quote(list, "recently ordered", 70))
	require.Equal(t, "您最近的订单如下：\n1. 蓝色T恤", quote("您最近的订单如下：\n1. 蓝色T恤\n2. 红色T恤", "订单", 20))
	require.Equal(t, "Your flight has been booked.", quote("Your flight has been booked.\nDetails: see below", "booked", 200),
		"a line that ends with a stop brings nothing more")
	// Chinese sentences end at 。！？
	require.Equal(t, "抱歉，我无法为您办理退票。", quote("您好！抱歉，我无法为您办理退票。\n还有其他问题吗？", "无法", 13))
	// A sentence longer than the limit is cut between words, keeping the marker.
	long := "Well " + strings.Repeat("very ", 30) + "sorry, but I cannot do that " + strings.Repeat("at all ", 30) + "today."
	q := quote(long, "cannot", 80)
	require.False(t, strings.HasSuffix(q, "ver") || strings.HasPrefix(q, "ery"))
	// A turn's opening: the first sentences that fit, cut at a word otherwise.
	require.Equal(t, "Hi! I need to change my flight.", sentenceQuote("Hi! I need to change my flight. It is HAT001 on May 20.", 0, 0, 35))
	require.Equal(t, "Hi there", sentenceQuote("Hi there my friend", 0, 0, 12), "never ends on a word that leads into the cut")
}

// A quote cut out of the middle of a turn says so in the description: an ellipsis at
// each end that was cut, inside the quote marks, then the sentence's stop.
func TestDescriptionsMarkAClippedQuote(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	long := "Well, I have been waiting on this line for a very long while now and honestly I would really like to speak to a human agent right away, because the last three answers did not help me at all with the problem I have."
	d := diagnose(t, a, sys(testPolicy), u("Help me with my account"), as("Sure, what is the problem?"), u(long), as("I can help you with that here."), u("Fine, bye"))
	f := only(d, "human_handoff")
	require.Len(t, f, 1)
	q := f[0].Evidence[0].Quote
	require.NotEqual(t, long, q, "the flag quotes a piece of the turn")
	require.Regexp(t, `asks for a person \(“…[^“”]+[^ ]…”\), but`, f[0].Description, "both ends were cut mid-sentence")

	start, end := textmatch.ClippedAt(long, q)
	require.False(t, start, "the evidence opens at the sentence")
	require.True(t, end, "and is cut before its end")
	require.Equal(t, "“Fine, bye”", (&view{conv: transcript.Conversation{Messages: []transcript.Message{u("Fine, bye")}}}).quotedAt(1, "Fine, bye"), "a whole turn is quoted as it is")
}

func TestAPieceOfACallKeepsItsOwnQuotes(t *testing.T) {
	t.Parallel()
	require.Equal(t, `"cabin": "business"`, quoted(`"cabin": "business"`), "no typographic quotes around JSON's own")
	require.Equal(t, "“Booked”", quoted("Booked"))
}
