package pipeline

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Folded is a text prepared for phrase matching: lower-cased, full-width ASCII narrowed,
// curly quotes straightened and whitespace runs collapsed to one space. It remembers
// where every folded byte came from, so a match found in the folded text is quoted
// from the original — quotes stay exact substrings of what the conversation said.
type Folded struct {
	Orig string // the text as written
	Text string // the folded text that phrases and patterns are matched against
	pos  []int  // pos[i] is the byte offset in Orig of the rune that produced Text[i]; pos[len(Text)] = len(Orig)
}

// Fold prepares s for matching. It works rune by rune, so CJK text, emoji and
// mixed scripts never split inside a character.
func Fold(s string) Folded {
	var b strings.Builder
	b.Grow(len(s))
	pos := make([]int, 0, len(s)+1)
	space := false
	for i, r := range s {
		f := foldRune(r)
		if f == ' ' {
			if space {
				continue
			}
			space = true
		} else {
			space = false
		}
		n := b.Len()
		b.WriteRune(f)
		for range b.Len() - n {
			pos = append(pos, i)
		}
	}
	pos = append(pos, len(s))
	return Folded{Orig: s, Text: b.String(), pos: pos}
}

// FoldString returns only the folded form of s, for hashing and comparisons that never
// quote back.
func FoldString(s string) string { return Fold(s).Text }

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

// Span converts a byte range of f.Text into the byte range of f.Orig it came from.
func (f Folded) Span(start, end int) (int, int) {
	return f.pos[start], f.pos[end]
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
}

// NewPhraseSet builds a PhraseSet from natural-language phrases.
func NewPhraseSet(phrases ...string) PhraseSet {
	ps := PhraseSet{phrases: make([]phrase, 0, len(phrases))}
	for _, p := range phrases {
		t := FoldString(strings.TrimSpace(p))
		if t == "" {
			continue
		}
		first, _ := utf8.DecodeRuneInString(t)
		last, _ := utf8.DecodeLastRuneInString(t)
		ps.phrases = append(ps.phrases, phrase{text: t, boundLeft: isWordRune(first), boundRt: isWordRune(last)})
	}
	return ps
}

// isWordRune reports whether r is part of a space-delimited word: letters and digits of
// scripts written with spaces. Han, Hiragana, Katakana and Hangul are not, so CJK phrases
// need no boundary.
func isWordRune(r rune) bool {
	if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
}

// Find returns the earliest match of any phrase in f (the longest one when two start
// at the same place).
func (ps PhraseSet) Find(f Folded) (Match, bool) {
	best, bestEnd, found := -1, -1, ""
	for _, p := range ps.phrases {
		i := indexBounded(f.Text, p)
		if i < 0 {
			continue
		}
		end := i + len(p.text)
		if best < 0 || i < best || (i == best && end > bestEnd) {
			best, bestEnd, found = i, end, p.text
		}
	}
	if best < 0 {
		return Match{}, false
	}
	s, e := f.Span(best, bestEnd)
	return Match{Start: s, End: e, Phrase: found}, true
}

// Contains reports whether any phrase occurs in f.
func (ps PhraseSet) Contains(f Folded) bool {
	for _, p := range ps.phrases {
		if indexBounded(f.Text, p) >= 0 {
			return true
		}
	}
	return false
}

// indexBounded finds p in text, skipping hits that break a word boundary p requires.
func indexBounded(text string, p phrase) int {
	off := 0
	for {
		i := strings.Index(text[off:], p.text)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(p.text)
		okLeft := !p.boundLeft || i == 0 || !isWordRune(lastRune(text[:i]))
		okRight := !p.boundRt || end == len(text) || !isWordRune(firstRune(text[end:]))
		if okLeft && okRight {
			return i
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		off = i + size
	}
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

// ClipQuote returns s trimmed, cut to at most maxRunes runes. The cut falls between
// runes, never inside one, and in space-delimited text at the last word boundary, so
// the result is always an exact substring of s.
func ClipQuote(s string, maxRunes int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= maxRunes {
		return s
	}
	cut := 0
	for range maxRunes {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	if isWordRune(lastRune(s[:cut])) && isWordRune(firstRune(s[cut:])) {
		if i := strings.LastIndexFunc(s[:cut], unicode.IsSpace); i > cut/2 {
			cut = i
		}
	}
	return strings.TrimSpace(s[:cut])
}

// ShingleSet is the sorted set of rune bigrams of a folded text, the unit of text
// similarity: it needs no word segmentation, so it compares Chinese as well as English.
type ShingleSet []uint64

// Shingles returns the bigram set of s after folding.
func Shingles(s string) ShingleSet {
	rs := []rune(FoldString(s))
	if len(rs) < 2 {
		if len(rs) == 1 {
			return ShingleSet{uint64(rs[0])}
		}
		return nil
	}
	set := make([]uint64, 0, len(rs)-1)
	for i := 1; i < len(rs); i++ {
		set = append(set, uint64(rs[i-1])<<32|uint64(rs[i]))
	}
	slices.Sort(set)
	return ShingleSet(slices.Compact(set))
}

// Jaccard returns |a∩b| / |a∪b|, 1 for two empty sets.
func (a ShingleSet) Jaccard(b ShingleSet) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// Similarity is the Jaccard similarity of the bigram sets of a and b, 0..1.
func Similarity(a, b string) float64 { return Shingles(a).Jaccard(Shingles(b)) }
