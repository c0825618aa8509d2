package search

import (
	"encoding/json"
	"fmt"
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
	q := newSnippetQuery(text)
	for i, m := range msgs {
		if quote, ok := q.match(m); ok {
			return i + 1, quote
		}
	}
	return 0, ""
}

// SnippetOfJSON is Snippet for a conversation's messages as stored, a JSON array: it
// decodes them one at a time only as far as the first that matches, and none when the
// text holds none of the words looked for at all, since decoding is most of the work.
func SnippetOfJSON(raw, text string) (turn int, quote string, err error) {
	q := newSnippetQuery(text)
	if !q.maybeIn(raw) {
		return 0, "", nil
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return 0, "", fmt.Errorf("search: snippet: %w", err)
	}
	for i := 1; dec.More(); i++ {
		var m transcript.Message
		if err := dec.Decode(&m); err != nil {
			return 0, "", fmt.Errorf("search: snippet: message %d: %w", i, err)
		}
		if quote, ok := q.match(m); ok {
			return i, quote, nil
		}
	}
	return 0, "", nil
}

// snippetQuery is what a search looks for in a message: the names joined by
// underscores it holds, whole, and the terms of its other words, as Query makes them.
type snippetQuery struct {
	names, terms []string
	leads        []string // what a word a term matches starts with, lower case
}

func newSnippetQuery(text string) snippetQuery {
	var q snippetQuery
	b := []byte(text)
	for start, end := range identifierSpans(text) {
		q.names = append(q.names, strings.ToLower(text[start:end]))
		for i := start; i < end; i++ {
			b[i] = ' '
		}
	}
	for _, w := range textmatch.Terms(string(b)) {
		if t, ok := queryTerm(w); ok {
			q.terms = append(q.terms, t)
			q.leads = append(q.leads, lead(t))
		}
	}
	return q
}

// lead is the start every word a term matches has: the term but for its last letter
// (a stem ends in "i" where its word has "y"), the whole of a Chinese term.
func lead(t string) string {
	if cjk(t) {
		return t
	}
	_, size := utf8.DecodeLastRuneInString(t)
	if size == len(t) {
		return t
	}
	return t[:len(t)-size]
}

// maybeIn reports whether raw (a conversation's JSON) could hold a match: one of the
// names or leads in it, in any case.
func (q snippetQuery) maybeIn(raw string) bool {
	lower := strings.ToLower(raw)
	for _, n := range q.names {
		if strings.Contains(lower, n) {
			return true
		}
	}
	for _, l := range q.leads {
		if strings.Contains(lower, l) {
			return true
		}
	}
	return false
}

// match quotes m around its first match, unless m is a system prompt.
func (q snippetQuery) match(m transcript.Message) (string, bool) {
	if m.Role == transcript.RoleSystem {
		return "", false
	}
	body := analyzer.TurnText(m)
	start, end, ok := findName(body, q.names)
	if !ok {
		start, end, ok = findTerm(body, q.terms)
	}
	if !ok {
		return "", false
	}
	return textmatch.QuoteAround(body, start, end, snippetRunes), true
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
// other as the start of the word's stem. It returns the word's byte span in body. Only
// the words that start as a term does are stemmed: a stem is the start of its word but
// for its last letter ("appli" of "apply"), so no other word can match.
func findTerm(body string, terms []string) (start, end int, ok bool) {
	folded := textmatch.Fold(body)
	text := folded.Text
	for _, t := range terms {
		if cjk(t) {
			if i := strings.Index(text, t); i >= 0 {
				s, e := folded.Span(i, i+len(t))
				return s, e, true
			}
		}
	}
	best, bestEnd := -1, -1
	for _, t := range terms {
		if cjk(t) || t == "" {
			continue
		}
		_, size := utf8.DecodeLastRuneInString(t)
		lead := t[:len(t)-size] // what a word matching t starts with
		if lead == "" {
			lead = t
		}
		for from := 0; from < len(text); {
			i := strings.Index(text[from:], lead)
			if i < 0 {
				break
			}
			i += from
			from = i + len(lead)
			if best >= 0 && i >= best {
				break
			}
			if r, _ := utf8.DecodeLastRuneInString(text[:i]); i > 0 && wordRune(r) {
				continue // inside a word
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
			if strings.HasPrefix(word, t) || strings.HasPrefix(textmatch.Stem(word), t) {
				best, bestEnd = i, j
				break
			}
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	s, e := folded.Span(best, bestEnd)
	return s, e, true
}

// wordRune reports whether r belongs to a word a term can match: letters and digits
// of scripts written with spaces, and the underscore that joins a tool's name.
func wordRune(r rune) bool {
	return r == '_' || (r < utf8.RuneSelf && ('a' <= r && r <= 'z' || '0' <= r && r <= '9')) ||
		(r >= utf8.RuneSelf && !cjkRune(r) && (unicode.IsLetter(r) || unicode.IsDigit(r)))
}
