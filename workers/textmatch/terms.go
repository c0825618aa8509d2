package textmatch

import (
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// Terms splits s into the terms that word overlap and n-grams count, folded: words of
// letters and digits in scripts that separate words with spaces, cut at an apostrophe
// ("call's", "don't" give "call", "don"), and every pair of adjacent characters in
// scripts that do not (Han, Hiragana, Katakana), so 用户要求转人工 gives 用户 户要 要求 求转
// 转人 人工, and a lone character stands as itself. Anything else separates terms.
func Terms(s string) []string {
	var terms []string
	var word []rune
	var cjk []rune
	flush := func() {
		if len(word) > 0 {
			w := string(word)
			if i := strings.IndexByte(w, '\''); i >= 0 {
				w = w[:i]
			}
			if w != "" {
				terms = append(terms, w)
			}
			word = word[:0]
		}
		switch len(cjk) {
		case 0:
		case 1:
			terms = append(terms, string(cjk))
		default:
			for i := 1; i < len(cjk); i++ {
				terms = append(terms, string(cjk[i-1:i+1]))
			}
		}
		cjk = cjk[:0]
	}
	for _, r := range FoldString(s) {
		switch {
		case isCJK(r):
			if len(word) > 0 {
				flush()
			}
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || (r == '\'' && len(word) > 0):
			if len(cjk) > 0 {
				flush()
			}
			word = append(word, r)
		default:
			flush()
		}
	}
	flush()
	return terms
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
