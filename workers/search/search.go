// Package search is the full-text search of a task's conversations: the terms a
// conversation is indexed by when the quality pass stores it, and the query the text of
// a search box becomes. Both split text the same way (textmatch.Terms: folded words, and
// the characters and character pairs of scripts written without spaces) and stem English
// words, so "refunds" finds "refunded" and 退款 finds 申请退款, and neither depends on the
// database's locale: PostgreSQL only stores and matches the terms.
package search

import (
	"iter"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/textmatch"
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

// NamesTerm is in every document that indexes names joined by underscores whole, so a
// search tells a task whose documents do (Query's names) from one stored before, whose
// documents hold only the names' words. No text gives it: a term never starts with an
// underscore.
const NamesTerm = "_names"

// maxWords bounds an Indexer's memory of words; past it the memory starts again.
const maxWords = 100_000

// Indexer makes the search terms of conversations, remembering the term each word it
// has seen becomes: the conversations of one agent share most of their words, and
// stemming and deduplicating them is most of the work. An Indexer is used by one
// goroutine.
type Indexer struct {
	words map[string]*term   // a word as written (folded) → its term
	terms map[string]*term   // a term → itself, so words with one stem share it
	names map[string][]*term // a name joined by underscores → its terms
	conv  uint32             // the number of the conversation being indexed
}

// term is one search term, with the last conversation it was added to: a word seen
// again in the same conversation costs one map read.
type term struct {
	text string
	conv uint32
}

// NewIndexer returns an Indexer with nothing remembered.
func NewIndexer() *Indexer {
	return &Indexer{words: map[string]*term{}, terms: map[string]*term{}, names: map[string][]*term{}}
}

// Terms is what conversation c is indexed by: the distinct terms of its messages' text
// and of the tools it calls and hears from, sorted. A name joined by underscores
// (get_order_details) is a term whole, and so is each of its tails that is still
// joined (order_details), besides its words: a search for a tool, or for the end of
// its name, finds the conversations that name it, not every one with its words. The
// system prompt, which most conversations of a task share, is left out: it would
// match every one of them. A character of Chinese or Japanese is a term of its own as
// well as part of the pairs it makes, so a one-character search finds it anywhere.
func (x *Indexer) Terms(c transcript.Conversation) []string {
	if len(x.words) >= maxWords || x.conv == ^uint32(0) {
		clear(x.words)
		clear(x.terms)
		clear(x.names)
		x.conv = 0
	}
	x.conv++
	out := []string{NamesTerm}
	keep := func(t *term) {
		if t.conv != x.conv && len(out) < MaxTerms {
			t.conv = x.conv
			out = append(out, t.text)
		}
	}
	add := func(text string) {
		for id := range identifiers(text) {
			for _, t := range x.name(id) {
				keep(t)
			}
		}
		for w := range textmatch.EachTerm(text) {
			if len(out) >= MaxTerms {
				return
			}
			if r, size := utf8.DecodeRuneInString(w); cjkRune(r) { // a pair, or a lone character
				keep(x.word(w, w))
				if size < len(w) {
					keep(x.word(w[:size], w[:size]))
					keep(x.word(w[size:], w[size:]))
				}
				continue
			}
			if t, ok := x.words[w]; ok {
				keep(t)
				continue
			}
			if len(w) > maxTermRunes && utf8.RuneCountInString(w) > maxTermRunes {
				continue
			}
			keep(x.word(w, textmatch.Stem(w)))
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
	slices.Sort(out) // PostgreSQL builds the document from sorted terms in one pass, and sorts others dearer
	return out
}

// name returns the terms a name joined by underscores is indexed by, remembered: the
// name and each of its tails that is still joined (after a run of underscores), those
// no longer than a term may be. A name is a copy once remembered.
func (x *Indexer) name(id string) []*term {
	if ts, ok := x.names[id]; ok {
		return ts
	}
	var ts []*term
	for tail := id; strings.IndexByte(tail, '_') >= 0; tail = strings.TrimLeft(tail[strings.IndexByte(tail, '_'):], "_") {
		if len(tail) <= maxTermRunes {
			ts = append(ts, x.word(tail, tail))
		}
	}
	x.names[strings.Clone(id)] = ts
	return ts
}

// word remembers that w becomes the term text, sharing the term with the other words
// that become it; w and text may be slices of a folded text: what is remembered is a
// copy.
func (x *Indexer) word(w, text string) *term {
	if t, ok := x.words[w]; ok {
		return t
	}
	t, ok := x.terms[text]
	if !ok {
		t = &term{text: strings.Clone(text)}
		x.terms[t.text] = t
	}
	x.words[strings.Clone(w)] = t
	return t
}

// Query turns the text of a search into a PostgreSQL tsquery that every term of it must
// match: an English word, or a name joined by underscores, as the start of a term
// ("refu" finds "refund"; "get_order" and "order_details" find "get_order_details"),
// a pair of Chinese characters or a lone one as itself. names says whether the
// documents searched hold names whole (NamesTerm); in those stored before, a name is
// looked for by its words. It returns "" when the text has nothing to look for (only
// punctuation, say).
func Query(text string, names bool) string {
	var parts []string
	seen := map[string]bool{}
	add := func(t, part string) {
		if !seen[t] && len(parts) < maxQueryTerms {
			seen[t] = true
			parts = append(parts, part)
		}
	}
	if names {
		b := []byte(text)
		for start, end := range identifierSpans(text) {
			if end-start > maxTermRunes {
				continue // too long to be a term: looked for by its words
			}
			id := strings.ToLower(text[start:end])
			add(id, quote(id)+":*")
			for i := start; i < end; i++ {
				b[i] = ' '
			}
		}
		text = string(b)
	}
	for _, w := range textmatch.Terms(text) {
		if t, ok := queryTerm(w); ok {
			add(t, termQuery(t))
		}
	}
	return strings.Join(parts, " & ")
}

// HasNames reports whether the text of a search holds a name joined by underscores,
// which Query looks for whole or by its words depending on the documents.
func HasNames(text string) bool {
	for range identifierSpans(text) {
		return true
	}
	return false
}

// queryTerm is the term a word of a search looks for: stemmed when English; none for
// a run longer than a term may be.
func queryTerm(w string) (string, bool) {
	if cjk(w) {
		return w, true
	}
	if utf8.RuneCountInString(w) > maxTermRunes {
		return "", false
	}
	return textmatch.Stem(w), true
}

func termQuery(t string) string {
	if cjk(t) {
		return quote(t)
	}
	return quote(t) + ":*"
}

// quote writes t as a tsquery lexeme. Terms are letters, digits and underscores;
// quoting keeps the query well-formed whatever they hold.
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

// identifiers yields the names in text made of ASCII letters and digits joined by
// underscores (get_order_details), folded to lower case: the names of tools and of
// their fields, which people search for as they are written.
func identifiers(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for start, end := range identifierSpans(text) {
			if !yield(strings.ToLower(text[start:end])) {
				return
			}
		}
	}
}

// identifierSpans yields where each name joined by underscores starts and ends in
// text, leading and trailing underscores left out. Only the bytes around each
// underscore are read.
func identifierSpans(text string) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < len(text); {
			u := strings.IndexByte(text[i:], '_')
			if u < 0 {
				return
			}
			start, end := i+u, i+u+1
			for start > i && identifierByte(text[start-1]) {
				start--
			}
			for end < len(text) && identifierByte(text[end]) {
				end++
			}
			i = end
			for start < end && text[start] == '_' {
				start++
			}
			for end > start && text[end-1] == '_' {
				end--
			}
			if strings.IndexByte(text[start:end], '_') >= 0 && !yield(start, end) {
				return
			}
		}
	}
}

func identifierByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
