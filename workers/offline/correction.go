package offline

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// followsError reports whether a retry changes only values the failed call's error
// named ("total price is 375, but paid 374", then the same payment with 375): the agent
// did what the tool said it needs, and the user's choice stands. A retry that changes
// anything else (another payment method, another bag count), fills in what the failed
// call left empty, or changes the shape of the arguments is a new choice the user has
// not agreed to.
func followsError(failedArgs, retryArgs, errText string) bool {
	var was, is any
	if json.Unmarshal([]byte(failedArgs), &was) != nil || json.Unmarshal([]byte(retryArgs), &is) != nil {
		return false
	}
	var changed []string
	if !changedLeaves(was, is, &changed) || len(changed) == 0 {
		return false
	}
	for _, value := range changed {
		if !containsToken(errText, value) {
			return false
		}
	}
	return true
}

// changedLeaves appends to changed the text of each value of is that differs from
// was's at the same place; false when the two differ in shape (keys, lengths, types),
// which no single value names.
func changedLeaves(was, is any, changed *[]string) bool {
	switch is := is.(type) {
	case map[string]any:
		was, ok := was.(map[string]any)
		if !ok || len(was) != len(is) {
			return false
		}
		for k, v := range is {
			w, ok := was[k]
			if !ok || !changedLeaves(w, v, changed) {
				return false
			}
		}
		return true
	case []any:
		was, ok := was.([]any)
		if !ok || len(was) != len(is) {
			return false
		}
		for i := range is {
			if !changedLeaves(was[i], is[i], changed) {
				return false
			}
		}
		return true
	}
	wasText, isText := leafText(was), leafText(is)
	if wasText != isText {
		*changed = append(*changed, isText)
	}
	return true
}

// leafText is a JSON scalar as a message would write it: a string without its quotes,
// a number in its shortest form.
func leafText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// containsToken reports whether value occurs in text as a whole word or number, not
// inside a longer one ("375" in "paid 375", not in "1375").
func containsToken(text, value string) bool {
	if value == "" {
		return false
	}
	for at := 0; ; {
		i := strings.Index(text[at:], value)
		if i < 0 {
			return false
		}
		start, end := at+i, at+i+len(value)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if !wordRune(before) && !wordRune(after) {
			return true
		}
		at = start + 1
	}
}

// wordRune reports a rune that continues a word or a number. Chinese and Japanese
// characters do not: those scripts write a number straight after a word ("总价375").
func wordRune(r rune) bool {
	if r == utf8.RuneError || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
}
