package components

import "unicode"

// QuoteLang is the lang attribute of a quote of a conversation (or of words a person
// typed) shown on a page: "zh" when it has Chinese characters, "ja" or "ko" for kana or
// Hangul, else "und", undetermined. The page's lang is the reader's, not the
// conversation's, which no upload states: marked with the page's zh-CN, an English
// quote takes the Chinese face and its ’ and " come out full width. A script says
// enough to choose the face, and "und" claims no language a French or German quote
// does not speak. Each quote is judged on its own, since one conversation may switch
// language between turns.
func QuoteLang(s string) string {
	han := false
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			return "ja"
		case unicode.Is(unicode.Hangul, r):
			return "ko"
		case unicode.Is(unicode.Han, r):
			han = true
		}
	}
	if han {
		return "zh"
	}
	return "und"
}
