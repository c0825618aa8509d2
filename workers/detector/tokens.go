package detector

import (
	"iter"
	"unicode"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/workers/textmatch"
)

// eachToken yields the tokens of text the way the detector counts words: folded words
// of two or more letters in scripts that separate words with spaces (a word with a digit
// or an underscore — an id, an amount, a tool name — is skipped and breaks a pair),
// and in scripts that do not (Han, Hiragana, Katakana) every character on its own. Each
// token comes with whether it is CJK, so the caller can pair adjacent characters.
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
			case r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana):
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
				if start < 0 && !yield("", false) {
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
