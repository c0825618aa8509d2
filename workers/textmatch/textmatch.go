// Package textmatch is the Unicode-correct text handling every analysis stage shares:
// folding for case-, width- and whitespace-insensitive phrase matching (English and
// Chinese alike, with word boundaries only where the script has them), quotes cut at
// rune and word boundaries that stay exact substrings of the text, and rune-bigram
// similarity that works on CJK text without spaces.
package textmatch

import (
	"iter"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Folded is a text prepared for phrase matching: lower-cased, full-width ASCII narrowed,
// curly quotes straightened and whitespace runs collapsed to one space. A match found
// in the folded text is quoted from the original (Span), so quotes stay exact
// substrings of what the conversation said.
type Folded struct {
	Orig string // the text as written
	Text string // the folded text that phrases and patterns are matched against
}

// Fold prepares s for matching. It works rune by rune, so CJK text, emoji and mixed
// scripts never split inside a character; ASCII, most of what agents and tools write,
// takes a byte at a time. Text is s itself when folding changes nothing.
func Fold(s string) Folded { return Folded{Orig: s, Text: FoldString(s)} }

// FoldString returns only the folded form of s, for hashing and comparisons that never
// quote back.
func FoldString(s string) string {
	if folded(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + utf8.UTFMax)
	space := false
	slow := 0 // up to here the bytes are folded one at a time: a word that did not fold by case
	for i := 0; i < len(s); {
		if i >= slow {
			if i, space = writePlainWords(&b, s, i, space); i == len(s) {
				break
			}
			slow = i + 8
		}
		if c := s[i]; c < utf8.RuneSelf {
			i++
			switch {
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			case asciiSpace(c):
				if space {
					continue
				}
				space = true
				b.WriteByte(' ')
				continue
			}
			space = false
			b.WriteByte(c)
			continue
		}
		f, size := foldAt(s, i)
		i += size
		if f == ' ' {
			if space {
				continue
			}
			space = true
		} else {
			space = false
		}
		b.WriteRune(f)
	}
	return b.String()
}

// folded reports whether folding leaves s as it is: ASCII without capitals, without
// whitespace other than single spaces.
func folded(s string) bool {
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') || asciiSpace(c) && c != ' ':
			return false
		case c == ' ':
			if space {
				return false
			}
			space = true
		default:
			space = false
		}
	}
	return true
}

// foldAt folds the rune that starts at byte i of s, returning it and the bytes it took.
func foldAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		switch {
		case 'A' <= c && c <= 'Z':
			return rune(c + 'a' - 'A'), 1
		case asciiSpace(c):
			return ' ', 1
		}
		return rune(c), 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	return foldRune(r), size
}

// asciiSpace is unicode.IsSpace for ASCII bytes.
func asciiSpace(c byte) bool {
	return c == ' ' || ('\t' <= c && c <= '\r')
}

// foldRune maps one rune to its matching form. It is a one-rune-to-one-rune mapping so
// positions can be carried back to the original text.
func foldRune(r rune) rune {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E: // full-width ASCII, common in Chinese text
		r -= 0xFEE0
	case r == 0x3000 || unicode.IsSpace(r):
		return ' '
	case r == '‘' || r == '’' || r == '′':
		return '\''
	case r == '“' || r == '”':
		return '"'
	case r == '。':
		return '.'
	case r == '、':
		return ','
	}
	return unicode.ToLower(r)
}

// Span converts a byte range of f.Text into the byte range of f.Orig it came from: a
// folded byte maps to the start of the rune that produced it, and the end of Text to
// the end of Orig. It folds Orig again up to end, which is cheaper than keeping the
// map for every text when only matches are quoted.
func (f Folded) Span(start, end int) (int, int) {
	if f.Text == f.Orig { // folding changed nothing: the same offsets, at rune starts
		return runeStart(f.Orig, start), runeStart(f.Orig, end)
	}
	from := -1
	out := 0 // bytes of Text produced so far
	space := false
	for i := 0; i < len(f.Orig); {
		r, size := foldAt(f.Orig, i)
		if r == ' ' {
			if space {
				i += size
				continue
			}
			space = true
		} else {
			space = false
		}
		out += utf8.RuneLen(r)
		if from < 0 && start < out {
			from = i
		}
		if end < out {
			return from, i
		}
		i += size
	}
	if from < 0 {
		from = len(f.Orig)
	}
	return from, len(f.Orig)
}

// runeStart moves offset i of s back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// Match is where a phrase was found, as byte offsets into the original text.
type Match struct {
	Start, End int
	Phrase     string // the folded phrase that matched
}

type phrase struct {
	text               string
	boundLeft, boundRt bool // the phrase edge is a word character that must not touch another one
}

// PhraseSet is a fixed list of phrases searched for in folded text. Phrases are folded
// when the set is built, so lists can be written naturally ("I'm", "抱歉，我不能"). An
// edge of a phrase that is a letter or digit only matches at a word boundary, so "ok"
// does not match inside "book"; CJK phrases match anywhere, as CJK has no spaces.
type PhraseSet struct {
	phrases []phrase
	index   *phraseIndex
}

// phraseIndex finds the phrases of a set in one pass over a text, trying at each
// position only the phrases that can start there.
type phraseIndex struct {
	// pairs has bit a<<8|b set when a phrase begins with the bytes a, b (a phrase of
	// one byte a sets every b): most positions of a text are passed over on one bit.
	pairs [1 << 16 / 64]uint64
	// byFirst lists the phrases that begin with each byte, longest first.
	byFirst [256][]int32
}

// NewPhraseSet builds a PhraseSet from natural-language phrases.
func NewPhraseSet(phrases ...string) PhraseSet {
	ps := PhraseSet{phrases: make([]phrase, 0, len(phrases)), index: &phraseIndex{}}
	for _, p := range phrases {
		t := FoldString(strings.TrimSpace(p))
		if t == "" {
			continue
		}
		first, _ := utf8.DecodeRuneInString(t)
		last, _ := utf8.DecodeLastRuneInString(t)
		ps.index.byFirst[t[0]] = append(ps.index.byFirst[t[0]], int32(len(ps.phrases)))
		for b := range 256 {
			if len(t) == 1 || t[1] == byte(b) {
				k := uint(t[0])<<8 | uint(b)
				ps.index.pairs[k/64] |= 1 << (k % 64)
			}
		}
		ps.phrases = append(ps.phrases, phrase{text: t, boundLeft: isWordRune(first), boundRt: isWordRune(last)})
	}
	for _, list := range ps.index.byFirst {
		slices.SortStableFunc(list, func(a, b int32) int { return len(ps.phrases[b].text) - len(ps.phrases[a].text) })
	}
	return ps
}

// isWordRune reports whether r is part of a space-delimited word: letters and digits of
// scripts written with spaces. Han, Hiragana, Katakana and Hangul are not, so CJK phrases
// need no boundary.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
	}
	if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// Find returns the earliest match of any phrase in f (the longest one when two start
// at the same place).
func (ps PhraseSet) Find(f Folded) (Match, bool) {
	start, p := ps.find(f.Text, 0)
	if p == nil {
		return Match{}, false
	}
	s, e := f.Span(start, start+len(p.text))
	return Match{Start: s, End: e, Phrase: p.text}, true
}

// All yields the matches of f one after another, each the earliest (and longest) that
// starts after the one before it ends, as Find would find them in what is left.
func (ps PhraseSet) All(f Folded) iter.Seq[Match] {
	return func(yield func(Match) bool) {
		for from := 0; from < len(f.Text); {
			start, p := ps.find(f.Text, from)
			if p == nil {
				return
			}
			s, e := f.Span(start, start+len(p.text))
			if !yield(Match{Start: s, End: e, Phrase: p.text}) {
				return
			}
			from = start + len(p.text)
		}
	}
}

// Contains reports whether any phrase occurs in f.
func (ps PhraseSet) Contains(f Folded) bool {
	_, p := ps.find(f.Text, 0)
	return p != nil
}

// find finds the earliest match in text at from or after that keeps the word
// boundaries its phrase requires, the longest at that position, and returns its offset
// and phrase.
func (ps PhraseSet) find(text string, from int) (int, *phrase) {
	if ps.index == nil {
		return -1, nil
	}
	for i := from; i < len(text); i++ {
		if i+1 < len(text) {
			if k := uint(text[i])<<8 | uint(text[i+1]); ps.index.pairs[k/64]&(1<<(k%64)) == 0 {
				continue
			}
		}
		for _, k := range ps.index.byFirst[text[i]] {
			p := &ps.phrases[k]
			if !strings.HasPrefix(text[i:], p.text) {
				continue
			}
			end := i + len(p.text)
			okLeft := !p.boundLeft || i == 0 || !isWordRune(lastRune(text[:i]))
			okRight := !p.boundRt || end == len(text) || !isWordRune(firstRune(text[end:]))
			if okLeft && okRight {
				return i, p
			}
		}
	}
	return -1, nil
}

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }
func lastRune(s string) rune  { r, _ := utf8.DecodeLastRuneInString(s); return r }

// QuoteAround returns a quote of text[start:end] with a little context on each side,
// at most maxRunes runes. The quote is always an exact substring of text: context
// stops at line breaks and, in space-delimited scripts, at word boundaries; a match
// longer than maxRunes is clipped like ClipQuote.
func QuoteAround(text string, start, end, maxRunes int) string {
	match := text[start:end]
	n := utf8.RuneCountInString(match)
	if n >= maxRunes {
		return ClipQuote(match, maxRunes)
	}
	ctx := min(60, (maxRunes-n)/2)
	left := start
	for range ctx {
		if left == 0 {
			break
		}
		r, size := utf8.DecodeLastRuneInString(text[:left])
		if r == '\n' {
			break
		}
		left -= size
	}
	if left > 0 && isWordRune(lastRune(text[:left])) && isWordRune(firstRune(text[left:])) {
		// Cut inside a word: drop the partial word.
		if i := strings.IndexFunc(text[left:start], unicode.IsSpace); i >= 0 {
			left += i
		} else {
			left = start
		}
	}
	right := end
	for range ctx {
		if right == len(text) {
			break
		}
		r, size := utf8.DecodeRuneInString(text[right:])
		if r == '\n' {
			break
		}
		right += size
	}
	if right < len(text) && isWordRune(lastRune(text[:right])) && isWordRune(firstRune(text[right:])) {
		if i := strings.LastIndexFunc(text[end:right], unicode.IsSpace); i >= 0 {
			right = end + i
		} else {
			right = end
		}
	}
	return strings.TrimSpace(text[left:right])
}

// Prefix returns the first n runes of s, cutting between runes, never inside one: the
// one way every text in the product is shortened.
func Prefix(s string, n int) string {
	for i := range s {
		if n <= 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// ClipQuote returns s trimmed, cut to at most maxRunes runes, never mid-phrase. The cut
// falls between runes, never inside one, and in space-delimited text at the last word
// boundary (a word with an apostrophe, "there’s", is one word); then just after a
// sentence or clause mark (". ", ", ", "; ", "。", "，") when one falls in the last
// quarter of what is kept (past the first 40% in Chinese, which has no spaces), else
// before the words that only lead into what was cut
// ("and", "the", "to", "my": clipWords). The result is always an exact substring of s.
func ClipQuote(s string, maxRunes int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= maxRunes {
		return s
	}
	cut := len(Prefix(s, maxRunes))
	if inWord(s, cut) {
		if i := strings.LastIndexFunc(s[:cut], unicode.IsSpace); i > cut/2 {
			cut = i
		}
	}
	kept := strings.TrimSpace(s[:cut])
	// Chinese has no word boundaries to cut at: any clause mark past the first 40%.
	reach := len(kept) * 3 / 4
	if isCJK(lastRune(kept)) {
		reach = len(kept) * 2 / 5
	}
	if mark := lastClauseMark(kept); mark > 0 && mark >= reach {
		return strings.TrimSpace(kept[:mark])
	}
	return trimLeadIns(kept)
}

// inWord reports whether byte offset i of s falls inside a word: between word runes,
// or at an apostrophe between letters.
func inWord(s string, i int) bool {
	before, after := lastRune(s[:i]), firstRune(s[i:])
	apostrophe := func(r rune) bool { return r == '\'' || r == '’' }
	if apostrophe(before) {
		before = lastRune(s[:i-utf8.RuneLen(before)])
	}
	return isWordRune(before) && (isWordRune(after) || apostrophe(after))
}

// lastClauseMark is the byte offset just after the last sentence or clause mark of s
// that ends a clause (an ASCII mark followed by a space; any CJK one), 0 when none.
func lastClauseMark(s string) int {
	for i := len(s); i > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		switch {
		case strings.ContainsRune("。！？；，、：", r):
			return i
		case strings.ContainsRune(".!?,;:", r) && i < len(s) && s[i] == ' ':
			return i
		case r == '—' && i < len(s) && s[i] == ' ':
			return i - size
		}
		i -= size
	}
	return 0
}

// clipWords are the English words a phrase never ends on: a cut before what they lead
// into leaves them dangling ("…except for the keyboard, and there’").
var clipWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "but": true, "to": true, "of": true, "for": true,
	"with": true, "in": true, "on": true, "at": true, "by": true, "from": true, "into": true, "about": true, "as": true,
	"my": true, "your": true, "our": true, "their": true, "his": true, "her": true, "its": true, "this": true,
	"that": true, "these": true, "those": true, "which": true, "who": true, "there": true, "is": true, "are": true,
	"was": true, "were": true, "be": true, "been": true, "i": true, "you": true, "we": true, "they": true, "it": true,
	"if": true, "so": true, "than": true, "then": true, "not": true, "no": true, "can": true, "could": true,
	"would": true, "will": true, "should": true, "have": true, "has": true, "had": true, "do": true, "does": true,
	"did": true, "any": true, "some": true, "all": true, "very": true,
}

// trimLeadIns drops the words at the end of s that lead into something (clipWords),
// while more than half of s is left.
func trimLeadIns(s string) string {
	for {
		i := strings.LastIndexFunc(s, unicode.IsSpace)
		if i <= len(s)/2 {
			return s
		}
		last := strings.ToLower(strings.TrimRight(s[i+1:], ",;:—-’'s"))
		if !clipWords[last] && !clipWords[strings.TrimSuffix(strings.ToLower(s[i+1:]), "’s")] {
			return s
		}
		s = strings.TrimRightFunc(s[:i], func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(",;:—-", r) })
	}
}

// AppendFold appends the folded form of s to buf, without the space folding may leave
// at either end; content hashes use it. Folding the whole text at once and copying it
// is twice as fast as folding into buf a byte at a time (BenchmarkAppendFoldSample).
func AppendFold(buf []byte, s string) []byte {
	return append(buf, strings.Trim(FoldString(s), " ")...)
}
