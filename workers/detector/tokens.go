package detector

import (
	"iter"
	"unicode"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/workers/textmatch"
)

// eachToken yields the tokens of text the way the detector counts words: folded words
// of two or more letters in scripts that separate words with spaces (a word with a digit
// or an underscore — an id, an amount, a tool name — is skipped and breaks the pairs),
// and in scripts that do not (Han, Hiragana, Katakana) every character on its own. Each
// token comes with whether it is CJK, so the caller pairs characters and words alike.
// Tokens are slices of the folded text.
func eachToken(text string) iter.Seq2[string, bool] {
	return func(yield func(string, bool) bool) {
		f := textmatch.FoldString(text)
		start := -1 // byte offset of the word being read
		skip := false
		flush := func(end int) bool {
			w := f[start:end]
			start = -1
			if skip || utf8.RuneCountInString(w) < 2 {
				skip = false
				return yield("", false) // a break between pairs
			}
			return yield(w, false)
		}
		for i := 0; i < len(f); {
			r, size := utf8.DecodeRuneInString(f[i:])
			switch {
			case isCJK(r):
				if start >= 0 && !flush(i) {
					return
				}
				if !yield(f[i:i+size], true) {
					return
				}
			case unicode.IsLetter(r) || r == '\'':
				if start < 0 {
					if r == '\'' {
						break
					}
					start = i
				}
			case unicode.IsDigit(r) || r == '_':
				if start < 0 {
					start = i
				}
				skip = true
			default:
				if start >= 0 && !flush(i) {
					return
				}
				if !unicode.IsSpace(r) && !yield("", false) { // spaces join words into pairs
					return
				}
			}
			i += size
		}
		if start >= 0 {
			flush(len(f))
		}
	}
}

// isCJK says whether r belongs to a script written without spaces between words.
func isCJK(r rune) bool {
	return r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}
