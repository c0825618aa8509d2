package search

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// snippetRunes is how much of a message a search result shows around its match.
const snippetRunes = 140

// Snippet is where a search matched a conversation, as a result shows it: the first
// message (not the system prompt) with a word a term of text looks for — an English
// word by its stem's start, as Query finds it ("refund" in "refunded"), Chinese by its
// characters, a tool's name whole — and a quote of that message around the word, cut
// between words. turn is 0 when no message holds one (the match was in a part of the
// document a quote cannot show).
func Snippet(msgs []transcript.Message, text string) (turn int, quote string) {
	var terms []string
	for _, w := range textmatch.Terms(text) {
		if t, ok := queryTerm(w); ok {
			terms = append(terms, t)
		}
	}
	names := slices.Collect(identifiers(text))
	if len(terms) == 0 && len(names) == 0 {
		return 0, ""
	}
	find := func(match func(body string) (int, int, bool)) (int, string) {
		for i, m := range msgs {
			if m.Role == transcript.RoleSystem {
				continue
			}
			body := analyzer.TurnText(m)
			if start, end, ok := match(body); ok {
				return i + 1, textmatch.QuoteAround(body, start, end, snippetRunes)
			}
		}
		return 0, ""
	}
	// A tool's name is looked for whole first: its words are everywhere.
	if turn, quote := find(func(body string) (int, int, bool) { return findName(body, names) }); turn > 0 {
		return turn, quote
	}
	return find(func(body string) (int, int, bool) { return findTerm(body, terms) })
}

// findName finds the first of names (folded to lower case) in body, whole.
func findName(body string, names []string) (start, end int, ok bool) {
	lower := strings.ToLower(body)
	for _, n := range names {
		if i := strings.Index(lower, n); i >= 0 && len(lower) == len(body) {
			return i, i + len(n), true
		}
	}
	return 0, 0, false
}

// findTerm finds the first word of body that a term matches: a CJK term as it is, any
// other as the start of the word's stem. It returns the word's byte span in body.
func findTerm(body string, terms []string) (start, end int, ok bool) {
	folded := textmatch.Fold(body)
	for _, t := range terms {
		if cjk(t) {
			if i := strings.Index(folded.Text, t); i >= 0 {
				s, e := folded.Span(i, i+len(t))
				return s, e, true
			}
		}
	}
	text := folded.Text
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !wordRune(r) {
			i += size
			continue
		}
		j := i
		for j < len(text) {
			r, size := utf8.DecodeRuneInString(text[j:])
			if !wordRune(r) {
				break
			}
			j += size
		}
		word := text[i:j]
		for _, t := range terms {
			if !cjk(t) && (strings.HasPrefix(textmatch.Stem(word), t) || strings.HasPrefix(word, t)) {
				s, e := folded.Span(i, j)
				return s, e, true
			}
		}
		i = j
	}
	return 0, 0, false
}

// wordRune reports whether r belongs to a word a term can match: letters and digits
// of scripts written with spaces, and the underscore that joins a tool's name.
func wordRune(r rune) bool {
	return r == '_' || (r < utf8.RuneSelf && ('a' <= r && r <= 'z' || '0' <= r && r <= '9')) ||
		(r >= utf8.RuneSelf && !cjkRune(r) && (unicode.IsLetter(r) || unicode.IsDigit(r)))
}
