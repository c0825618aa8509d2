package offline

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/workers/textmatch"
)

// sentenceQuote quotes text[start:end] as a reader would want it: the whole sentence
// that holds it, followed by the sentences after it on the same line while they fit
// in maxRunes. A sentence too long to fit is cut between words around the match. The
// result is always an exact substring of text, so it verifies against the turn.
func sentenceQuote(text string, start, end, maxRunes int) string {
	s, e := sentenceStart(text, start), sentenceEnd(text, end)
	if utf8.RuneCountInString(text[s:e]) > maxRunes {
		// Open at the sentence's start and cut at a word after the match, if the
		// match survives the cut.
		lead := len(text[s:e]) - len(strings.TrimLeftFunc(text[s:e], unicode.IsSpace))
		if q := textmatch.ClipQuote(text[s:e], maxRunes); s+lead+len(q) >= end {
			return q
		}
		return textmatch.QuoteAround(text, start, end, maxRunes)
	}
	for e < len(text) && text[e] != '\n' {
		next := sentenceEnd(text, e)
		if next == e || utf8.RuneCountInString(strings.TrimSpace(text[s:next])) > maxRunes {
			break
		}
		e = next
	}
	return strings.TrimSpace(text[s:introduced(text, s, e, maxRunes)])
}

// introduced extends a quote text[s:e] that ends its line with a colon ("You ordered
// two t-shirts:") over the lines it introduces, while they fit in maxRunes: without
// them the quote promises what it does not show.
func introduced(text string, s, e, maxRunes int) int {
	if !strings.HasSuffix(strings.TrimRightFunc(text[s:e], unicode.IsSpace), ":") &&
		!strings.HasSuffix(strings.TrimRightFunc(text[s:e], unicode.IsSpace), "：") {
		return e
	}
	for e < len(text) && text[e] == '\n' {
		next := strings.IndexByte(text[e+1:], '\n')
		if next < 0 {
			next = len(text)
		} else {
			next += e + 1
		}
		if utf8.RuneCountInString(strings.TrimSpace(text[s:next])) > maxRunes {
			break
		}
		e = next
	}
	return e
}

// sentenceStart returns where the sentence holding pos begins: after the last
// sentence end or line break before pos.
func sentenceStart(text string, pos int) int {
	for i := pos; i > 0; {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if r == '\n' || isCJKStop(r) || (isStop(r) && startsWithSpace(text[i:]) && !goesOnLower(text[i:])) {
			return i
		}
		i -= size
	}
	return 0
}

// sentenceEnd returns where the sentence holding pos ends: just after the first
// sentence-ending mark at or after pos ("." "!" "?" followed by the end, or by a space
// and no lower-case word, or a Chinese stop), or at the line break or end of text.
func sentenceEnd(text string, pos int) int {
	for i := pos; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n':
			return i
		case isCJKStop(r):
			return i + size
		case isStop(r) && (i+size == len(text) || startsWithSpace(text[i+size:]) && !goesOnLower(text[i+size:])):
			return i + size
		}
		i += size
	}
	return len(text)
}

func isStop(r rune) bool    { return r == '.' || r == '!' || r == '?' }
func isCJKStop(r rune) bool { return r == '。' || r == '！' || r == '？' || r == '；' }

// goesOnLower reports whether the text after a full stop and its spaces goes on in
// lower case: the stop ended an abbreviation ("e.g. help the user", "approx. five"),
// not a sentence.
func goesOnLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(strings.TrimLeft(s, " \t"))
	return unicode.IsLower(r)
}

func startsWithSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

// quotedAt is quoted for a quote taken from a turn's text: an ellipsis marks each end
// where the quote was cut out of the turn mid-sentence, so a piece such as “I can
// contact a” reads as “I can contact a…”, not as the agent's whole words.
func (v *view) quotedAt(turn int, quote string) string {
	if turn < 1 || turn > len(v.conv.Messages) {
		return quoted(quote)
	}
	start, end := textmatch.ClippedAt(v.msg(turn).Content, quote)
	c := textmatch.ClipText(quote, 80)
	if end && c == strings.TrimSpace(quote) {
		c = textmatch.Elide(c)
	}
	if start {
		c = "…" + c
	}
	return "“" + c + "”"
}
