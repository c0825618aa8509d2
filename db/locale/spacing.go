package locale

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Chinese text is spaced by script, not by word: no space between two Chinese
// characters or beside full-width punctuation, one space between a Chinese character
// and a run of Latin letters or digits (a tool's name, an id, a number). A catalog
// string cannot know what fills its slots ("把 {{.Tool}} 返回" reads "把 该工具 返回"
// with the vocabulary's word and "把 book_reservation 返回" with a tool's name), so
// the spacing around each slot is set when the message is written, here, once for
// every message.

// slot marks where argument i goes in a message rendered with placeholders; the
// noncharacters around the index never occur in the catalog's own text.
func slot(i int) string { return "\uFDD0" + strconv.Itoa(i) + "\uFDD1" }

// fillSlots puts values into s, rendered with slot(i) for values[i], and sets the
// spacing at each edge of a value by the scripts that meet there. A value the message
// puts inside its own “” has its quotes written ‘’ (innerQuotes).
func fillSlots(s string, values []string) string {
	var out strings.Builder
	afterSlot := false // whether the next text starts at a value's end
	depth := 0         // how deep in the message's own “” the next value goes
	for s != "" {
		start := strings.Index(s, "\uFDD0")
		if start < 0 {
			writeSpaced(&out, s, afterSlot)
			break
		}
		end := strings.Index(s[start:], "\uFDD1")
		i, err := -1, error(nil)
		if end > 0 {
			i, err = strconv.Atoi(s[start+len("\uFDD0") : start+end])
		}
		if err != nil || i < 0 || i >= len(values) {
			writeSpaced(&out, s, afterSlot) // not a slot of this message: written as it is
			break
		}
		if start > 0 {
			writeSpaced(&out, s[:start], afterSlot)
			afterSlot = afterSlot && strings.Trim(s[:start], " ") == ""
			depth += strings.Count(s[:start], "“") - strings.Count(s[:start], "”")
		}
		value := values[i]
		if depth > 0 {
			value = innerQuotes(value)
		}
		writeSpaced(&out, value, true)
		afterSlot = true
		s = s[start+end+len("\uFDD1"):]
	}
	return out.String()
}

// writeSpaced appends next to out; at a value's edge the spaces where the two meet are
// replaced by the spacing their scripts call for.
func writeSpaced(out *strings.Builder, next string, atEdge bool) {
	if !atEdge {
		out.WriteString(next)
		return
	}
	before := out.String()
	head := strings.TrimRight(before, " ")
	body := strings.TrimLeft(next, " ")
	if head == "" || body == "" {
		out.WriteString(next)
		return
	}
	last, _ := utf8.DecodeLastRuneInString(head)
	first, _ := utf8.DecodeRuneInString(body)
	gap, ok := spacing(last, first)
	if !ok {
		out.WriteString(next)
		return
	}
	out.Reset()
	out.WriteString(head)
	out.WriteString(gap)
	out.WriteString(body)
}

// script is how a character takes part in Chinese spacing.
type script int

const (
	neutral script = iota // spaces around it are left as written
	han                   // a Chinese (or other CJK) character
	wide                  // full-width punctuation: nothing is spaced from it
	latin                 // a Latin letter or a digit
)

func scriptOf(r rune) script {
	switch {
	case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
		return han
	case r >= 0x3000 && r <= 0x303F, r >= 0xFF00 && r <= 0xFFEF, r == '“' || r == '”':
		return wide
	case r < 0x2E80 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
		return latin
	}
	return neutral
}

// FullWidth reports whether r is full-width punctuation (（）：；，。“” and the like),
// beside which Chinese text takes no space: a page written in pieces puts the spaces
// between its pieces back in by this.
func FullWidth(r rune) bool { return scriptOf(r) == wide }

// spacing is what goes between a and b, false when what was written stays.
func spacing(a, b rune) (string, bool) {
	sa, sb := scriptOf(a), scriptOf(b)
	switch {
	case sa == neutral || sb == neutral:
		return "", false
	case sa == wide || sb == wide:
		return "", true
	case sa == han && sb == han:
		return "", true
	case sa != sb:
		return " ", true
	}
	return "", false // two Latin runs: the catalog's own spacing
}

// innerQuotes writes the double quotes of a text that goes inside double quotes as
// single ones, “…” as ‘…’, as quotes inside quotes are written in Chinese (and in
// English). A text whose “ and ” do not pair up is left as it is: which of its quotes
// open and which close is not known.
func innerQuotes(s string) string {
	if !strings.ContainsAny(s, "“”") {
		return s
	}
	depth := 0
	for _, r := range s {
		switch r {
		case '“':
			depth++
		case '”':
			if depth--; depth < 0 {
				return s
			}
		}
	}
	if depth != 0 {
		return s
	}
	return strings.NewReplacer("“", "‘", "”", "’").Replace(s)
}
