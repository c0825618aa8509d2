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
