package textmatch

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// A description cut inside a quote closes it after "…", so what follows is not read
// as part of the quote.
func TestClipTextMarksTheCutAndClosesTheQuote(t *testing.T) {
	t.Parallel()
	s := "The user's last words before it were “Yes, please proceed. Also, I'd like to use my gift card for the rest.”."
	got := ClipText(s, 95)
	require.Equal(t, "The user's last words before it were “Yes, please proceed. Also, I'd like to use my gift card…”", got)
	require.LessOrEqual(t, utf8.RuneCountInString(got), 95+2, "the text kept and the marks")
	require.Equal(t, got+".", EndSentence(got), "a clipped text gets its stop")
	require.Equal(t, s, ClipText(s, 200), "a text that fits is left as it is")
	require.Equal(t, "One, two…", ClipText("One, two, three four five", 9), "no comma before the ellipsis")
	require.Equal(t, "Done. …", Elide("Done."))
	require.Equal(t, "3 of 16 tool calls failed: book_reservation at turn 40 (“Error…”)",
		ClipText("3 of 16 tool calls failed: book_reservation at turn 40 (“Error: payment amount does not add up”).", 70),
		"a bracket left open is closed after the quote")
	require.Equal(t, `get_order({"id"…`, ClipText(`get_order({"id": "W123", "items": ["lamp"]})`, 16), "a bracket in a quoted call is the call's own")
	require.Equal(t, "Done.", EndSentence("Done."))
	require.Equal(t, "“Done!”", EndSentence("“Done!”"))
}

// A cut never ends mid-phrase: at a clause mark near the end, else never on a word
// that only leads into what was cut; in Chinese at a clause mark.
func TestClipNeverEndsMidPhrase(t *testing.T) {
	t.Parallel()
	require.Equal(t, "I’d like to return everything from #W5490111 except for the keyboard…",
		ClipText("I’d like to return everything from #W5490111 except for the keyboard, and there’s no need to return anything from #W7387996.", 80))
	require.Equal(t, "Please send the refund to the original card that I used…",
		ClipText("Please send the refund to the original card that I used for the order last month", 60), "not “…used for the…”")
	require.Equal(t, "Can I get the refund to my PayPal", ClipQuote("Can I get the refund to my PayPal instead of Visa, since the card was cancelled?", 40))
	require.Equal(t, "我想退掉订单里的台灯和水杯，", ClipQuote("我想退掉订单里的台灯和水杯，但是键盘要留着，退款请退到原来的支付方式。", 20))
	require.Equal(t, "我想退掉订单里的台灯和水杯…", ClipText("我想退掉订单里的台灯和水杯，但是键盘要留着，退款请退到原来的支付方式。", 20))
	require.Equal(t, "and there’s", ClipQuote("and there’s more", 12), "an apostrophe is inside a word, and half is kept")
}

func TestClippedAt(t *testing.T) {
	t.Parallel()
	text := "Sorry. I cannot contact a human agent now, but I can help.\nBye"
	start, end := ClippedAt(text, "I cannot contact a")
	require.False(t, start, "it starts a sentence")
	require.True(t, end, "it stops mid-sentence")
	start, end = ClippedAt(text, "contact a human agent now, but I can help.")
	require.True(t, start)
	require.False(t, end, "it ends the sentence")
	start, end = ClippedAt(text, "Bye")
	require.False(t, start || end, "a whole line")
}

// A cut never ends inside a bracket it opened: the text stops before the aside, in
// either language, unless that leaves less than half of it.
func TestClipTextEndsOutsideABracket(t *testing.T) {
	t.Parallel()
	policy := "Before taking any actions that update the booking database (booking, modifying flights, editing baggage), you must obtain explicit confirmation."
	require.Equal(t, "Before taking any actions that update the booking database…", ClipText(policy, 70))
	zh := "在执行任何会更新预订数据库的操作之前（预订、修改航班、更改行李），必须先获得用户的明确确认。"
	require.Equal(t, "在执行任何会更新预订数据库的操作之前…", ClipText(zh, 25))
	require.Equal(t, "Note (this aside opens early and runs…", ClipText("Note (this aside opens early and runs on for a long while before closing)", 42), "too little before it")
}
