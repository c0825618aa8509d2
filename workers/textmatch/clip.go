package textmatch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ClipText is ClipQuote for prose people read rather than a quote verified against a
// turn: a text cut short ends with Elide's "…", and closes a typographic quote it
// opened, so a description clipped inside a quote never runs into what follows.
// It keeps at most maxRunes runes of s; the marks come on top.
func ClipText(s string, maxRunes int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= maxRunes {
		return s
	}
	return Elide(outsideBrackets(ClipQuote(s, maxRunes)))
}

// outsideBrackets cuts a clipped text before a bracket it opened and did not close,
// so the cut does not end inside an aside ("the booking database (booking…"), when
// what is before it is at least half the text. An aside's bracket follows a space or
// is full-width: get_order({… is a call; a quote in brackets ("(“Error…") is left for
// Elide to close.
func outsideBrackets(s string) string {
	var open []int
	for i, r := range s {
		switch {
		case (r == '（' || r == '(' && strings.HasSuffix(s[:i], " ")) && !strings.HasPrefix(s[i+utf8.RuneLen(r):], "“"):
			open = append(open, i)
		case (r == ')' || r == '）') && len(open) > 0:
			open = open[:len(open)-1]
		}
	}
	if len(open) == 0 || utf8.RuneCountInString(s[:open[0]]) < utf8.RuneCountInString(s)/2 {
		return s
	}
	return s[:open[0]]
}

// Elide marks s as cut short: the spaces and the clause marks ("," ";" ":" "—", "，") it was
// cut after are dropped, "…" is appended (after a space if s ends a sentence, so the
// stop and the ellipsis stay apart), and a “ left open is closed, and the bracket
// around it when it opens one.
func Elide(s string) string {
	s = strings.TrimRightFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;:—–-(“，、；：", r)
	})
	switch r := lastRune(s); {
	case s == "":
		return "…"
	case r == '.' || r == '!' || r == '?':
		s += " …"
	default:
		s += "…"
	}
	if strings.Count(s, "“") > strings.Count(s, "”") {
		s += "”"
	}
	if open := strings.LastIndex(s, "(“"); open >= 0 && !strings.Contains(s[open:], ")") {
		s += ")" // a quote in brackets, as descriptions cite an error: “(“Error: …”)”
	}
	return s
}

// EndSentence ends s with a full stop unless it already ends a sentence (with ".", "!"
// or "?", before any closing quote or bracket), so a clipped text followed by another
// sentence reads as two: "…were “Yes, please…”." then "Example: …".
func EndSentence(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	t := strings.TrimRight(s, "”\"')]")
	if s == "" {
		return s
	}
	switch lastRune(t) {
	case '.', '!', '?', '。', '！', '？':
		return s
	}
	return s + "."
}

// ClippedAt reports whether quote, an exact substring of text, was cut out of it
// mid-sentence: at its start (text goes on before it on the same line, past no
// sentence end) and at its end (text goes on after it on the same line and the quote
// does not end a sentence).
func ClippedAt(text, quote string) (start, end bool) {
	quote = strings.TrimSpace(quote)
	i := strings.Index(text, quote)
	if i < 0 || quote == "" {
		return false, false
	}
	before := strings.TrimRightFunc(text[:i], func(r rune) bool { return r == ' ' || r == '\t' })
	if before != "" && lastRune(before) != '\n' && !endsSentence(before) {
		start = true
	}
	after := strings.TrimLeftFunc(text[i+len(quote):], func(r rune) bool { return r == ' ' || r == '\t' })
	if after != "" && firstRune(after) != '\n' && !endsSentence(quote) {
		end = true
	}
	return start, end
}

func endsSentence(s string) bool {
	switch lastRune(strings.TrimRight(s, "”\"')]")) {
	case '.', '!', '?', '。', '！', '？', '；', ':':
		return true
	}
	return false
}
