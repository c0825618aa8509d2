// Package search is the full-text search of a task's conversations: the terms a
// conversation is indexed by when the quality pass stores it, and the query the text of
// a search box becomes. Both split text the same way (textmatch.Terms: folded words, and
// the characters and character pairs of scripts written without spaces) and stem English
// words, so "refunds" finds "refunded" and 退款 finds 申请退款, and neither depends on the
// database's locale: PostgreSQL only stores and matches the terms.
package search

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/workers/textmatch"
	"github.com/checkup-dev/checkup/workers/transcript"
)

// Bounds on what is indexed and asked for.
const (
	// maxTermRunes drops longer runs of letters and digits, which are ids, hashes and
	// encoded data that nobody types into a search box.
	maxTermRunes = 40
	// MaxTerms is how many distinct terms one conversation is indexed by: far more than
	// a conversation of a few hundred turns has, and far below what PostgreSQL stores in
	// one document.
	MaxTerms = 20_000
	// MaxQueryRunes is the longest search accepted.
	MaxQueryRunes = 200
	// maxQueryTerms is how many terms of a search are looked for.
	maxQueryTerms = 16
)

// maxStems bounds an Indexer's memory of stems; past it the memory starts again.
const maxStems = 100_000

// Indexer makes the search terms of conversations, remembering the stems of the words
// it has seen: the conversations of one agent share most of their words, and stemming
// is most of the work. An Indexer is used by one goroutine.
type Indexer struct {
	stems map[string]string
}

// NewIndexer returns an Indexer with nothing remembered.
func NewIndexer() *Indexer { return &Indexer{stems: map[string]string{}} }

// Terms is what conversation c is indexed by: the distinct terms of its messages' text
// and of the tools it calls and hears from, sorted. The system prompt, which most
// conversations of a task share, is left out: it would match every one of them. A
// character of Chinese or Japanese is a term of its own as well as part of the pairs it
// makes, so a one-character search finds it anywhere.
func (x *Indexer) Terms(c transcript.Conversation) []string {
	set := map[string]struct{}{}
	keep := func(t string) { // t is a slice of a folded text: keep a copy
		if _, ok := set[t]; !ok {
			set[strings.Clone(t)] = struct{}{}
		}
	}
	add := func(text string) {
		for t := range textmatch.EachTerm(text) {
			if len(set) >= MaxTerms {
				return
			}
			if r, size := utf8.DecodeRuneInString(t); cjkRune(r) {
				keep(t)
				if size < len(t) {
					keep(t[:size])
					keep(t[size:])
				}
				continue
			}
			if len(t) > maxTermRunes && utf8.RuneCountInString(t) > maxTermRunes {
				continue
			}
			keep(x.stem(t))
		}
	}
	for _, m := range c.Messages {
		if m.Role == transcript.RoleSystem {
			continue
		}
		add(m.Content)
		add(m.Name)
		for _, call := range m.ToolCalls {
			add(call.Name)
		}
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// stem returns w's stem, from memory when w was seen before. w may be a slice of a
// folded text; what is remembered is a copy.
func (x *Indexer) stem(w string) string {
	if s, ok := x.stems[w]; ok {
		return s
	}
	if len(x.stems) >= maxStems {
		clear(x.stems)
	}
	w = strings.Clone(w)
	s := textmatch.Stem(w)
	x.stems[w] = s
	return s
}

// Query turns the text of a search into a PostgreSQL tsquery that every term of it must
// match: an English word as the start of a term (so "refu" finds "refund"), a pair of
// Chinese characters or a lone one as itself. It returns "" when the text has nothing
// to look for (only punctuation, say).
func Query(text string) string {
	var terms []string
	seen := map[string]bool{}
	for _, t := range textmatch.Terms(text) {
		if !cjk(t) {
			if utf8.RuneCountInString(t) > maxTermRunes {
				continue
			}
			t = textmatch.Stem(t)
		}
		if !seen[t] && len(terms) < maxQueryTerms {
			seen[t] = true
			terms = append(terms, t)
		}
	}
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = quote(t)
		if !cjk(t) {
			parts[i] += ":*"
		}
	}
	return strings.Join(parts, " & ")
}

// quote writes t as a tsquery lexeme. Terms are letters and digits only; quoting keeps
// the query well-formed whatever they hold.
func quote(t string) string {
	t = strings.ReplaceAll(t, `\`, `\\`)
	return "'" + strings.ReplaceAll(t, "'", "''") + "'"
}

// cjk reports whether a term is of a script written without spaces (textmatch.Terms
// makes those of characters and character pairs).
func cjk(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	return cjkRune(r)
}

func cjkRune(r rune) bool {
	return r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}
