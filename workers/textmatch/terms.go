package textmatch

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Terms splits s into the terms that word overlap and n-grams count, folded: words of
// letters and digits in scripts that separate words with spaces, cut at an apostrophe
// ("call's", "don't" give "call", "don"), and every pair of adjacent characters in
// scripts that do not (Han, Hiragana, Katakana), so 用户要求转人工 gives 用户 户要 要求 求转
// 转人 人工, and a lone character stands as itself. Anything else separates terms.
func Terms(s string) []string {
	var terms []string
	for t := range EachTerm(s) {
		terms = append(terms, strings.Clone(t))
	}
	return terms
}

// EachTerm yields the terms of s as Terms makes them, without allocating one string per
// term: each is a slice of s folded, valid for as long as the caller keeps it, which
// pins the whole folded text (strings.Clone a term to keep it on its own). What indexes
// every word of every conversation needs.
func EachTerm(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		f := FoldString(s)
		word := -1    // byte offset of the word being read, -1 for none
		cut := -1     // byte offset of that word's first apostrophe, where it ends
		var run []int // byte offsets of the characters of the CJK run being read
		ok := true    // false once yield asked to stop
		endWord := func(end int) {
			if cut >= 0 {
				end = cut
			}
			w := f[word:end]
			word, cut = -1, -1
			if w != "" && ok {
				ok = yield(w)
			}
		}
		endRun := func(end int) {
			if len(run) == 1 && ok {
				ok = yield(f[run[0]:end])
			}
			for i := 1; i < len(run) && ok; i++ {
				e := end
				if i+1 < len(run) {
					e = run[i+1]
				}
				ok = yield(f[run[i-1]:e])
			}
			run = run[:0]
		}
		// A word and a run are never open at once; each is closed only when open.
		for i := 0; i < len(f) && ok; {
			c := f[i]
			if c < utf8.RuneSelf {
				switch {
				case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
					if len(run) > 0 {
						endRun(i)
					}
					if word < 0 {
						word = i
					}
				case c == '\'' && word >= 0:
					if cut < 0 {
						cut = i
					}
				default:
					if word >= 0 {
						endWord(i)
					}
					if len(run) > 0 {
						endRun(i)
					}
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(f[i:])
			switch {
			case isCJK(r):
				if word >= 0 {
					endWord(i)
				}
				run = append(run, i)
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				if len(run) > 0 {
					endRun(i)
				}
				if word < 0 {
					word = i
				}
			default:
				if word >= 0 {
					endWord(i)
				}
				if len(run) > 0 {
					endRun(i)
				}
			}
			i += size
		}
		if word >= 0 {
			endWord(len(f))
		}
		endRun(len(f))
	}
}

// isCJK reports whether r belongs to a script written without spaces between words.
func isCJK(r rune) bool {
	return r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// Stem reduces an English word to its Porter2 stem, so that "modified", "modifies" and
// "modify" meet, and "bags" and "bag": what telling which sentence of a policy a reply
// speaks of needs. Other words come back as they are.
func Stem(w string) string {
	if len(w) < 3 || !isASCIILetters(w) {
		return w
	}
	return english.Stem(w, false)
}

// maxStems bounds a Stemmer's memory (a few MB of words and stems); past it the memory
// starts again.
const maxStems = 50_000

// A Stemmer stems as Stem does and remembers each word's stem: conversations share most
// of their words, and the Porter2 stemmer is costly (it turns the word into runes again
// for each suffix it tries). Stems depend on the word alone, so one memory serves any
// task. A Stemmer is used by one goroutine at a time.
type Stemmer struct{ stems map[string]string }

// Stem returns Stem(w), from memory for a word seen before. w may be a slice of a
// longer text (EachTerm's terms), so a copy is stemmed and remembered: the stemmer
// returns some words as they are, and a stem of w itself would keep the whole text.
func (s *Stemmer) Stem(w string) string {
	if len(w) < 3 || !isASCIILetters(w) {
		return w
	}
	if stem, ok := s.stems[w]; ok {
		return stem
	}
	if s.stems == nil || len(s.stems) >= maxStems {
		s.stems = make(map[string]string)
	}
	word := strings.Clone(w)
	stem := english.Stem(word, false)
	s.stems[word] = stem
	return stem
}

func isASCIILetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// Stopword reports whether a folded term is an English function word or a courtesy,
// which says nothing about what a text is about.
func Stopword(t string) bool {
	switch t {
	case "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
		"are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but",
		"by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for",
		"from", "further", "get", "got", "had", "has", "have", "having", "he", "hello", "her", "here",
		"hers", "herself", "hi", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it",
		"its", "itself", "just", "let", "like", "may", "me", "more", "most", "must", "my", "myself",
		"need", "no", "nor", "not", "now", "of", "off", "ok", "okay", "on", "once", "only", "or",
		"other", "our", "ours", "ourselves", "out", "over", "own", "please", "same", "she", "should",
		"so", "some", "such", "sure", "than", "thank", "thanks", "that", "the", "their", "theirs",
		"them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too",
		"under", "until", "up", "very", "want", "was", "we", "well", "were", "what", "when", "where",
		"which", "while", "who", "whom", "why", "will", "with", "would", "yes", "you", "your", "yours",
		"yourself", "yourselves":
		return true
	}
	return false
}
