package transcript

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// UnquoteJSON decodes one JSON string literal, quotes included, as encoding/json does
// for valid input, and reports false for anything it would treat in a way of its own:
// a missing quote, a control character, an unknown escape, a lone surrogate or invalid
// UTF-8. A literal without escapes is returned as a substring of lit. The upload parser
// and the reader of stored transcripts both decode their strings with it.
func UnquoteJSON(lit string) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false
	}
	body := lit[1 : len(lit)-1]
	i := strings.IndexByte(body, '\\')
	if i < 0 {
		return body, utf8.ValidString(body) && !hasControlOrQuote(body)
	}
	if hasControlOrQuote(body[:i]) {
		return "", false
	}
	buf := make([]byte, 0, len(body))
	buf = append(buf, body[:i]...)
	for i < len(body) {
		if body[i] != '\\' { // the bytes up to the next escape, at once
			run := body[i:]
			if j := strings.IndexByte(run, '\\'); j >= 0 {
				run = run[:j]
			}
			if hasControlOrQuote(run) {
				return "", false
			}
			buf = append(buf, run...)
			i += len(run)
			continue
		}
		if i+1 >= len(body) {
			return "", false
		}
		esc := body[i+1]
		i += 2
		switch esc {
		case '"', '\\', '/':
			buf = append(buf, esc)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := hex4(body, i)
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
					return "", false
				}
				low, ok := hex4(body, i+2)
				if r = utf16.DecodeRune(r, low); !ok || r == utf8.RuneError {
					return "", false
				}
				i += 6
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", false
		}
	}
	return string(buf), utf8.Valid(buf)
}

// hex4 reads the four hex digits of a \u escape at s[i:].
func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	v, err := strconv.ParseUint(s[i:i+4], 16, 16)
	return rune(v), err == nil
}

func hasControlOrQuote(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == '"' {
			return true
		}
	}
	return false
}
