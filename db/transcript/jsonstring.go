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
	n := plainPrefix(body)
	if n == len(body) {
		return body, utf8.ValidString(body)
	}
	var b strings.Builder
	b.Grow(len(body))
	b.WriteString(body[:n])
	for i := n; i < len(body); {
		if body[i] != '\\' || i+1 >= len(body) { // a quote, a control character, a backslash at the end
			return "", false
		}
		esc := body[i+1]
		i += 2
		switch esc {
		case '"', '\\', '/':
			b.WriteByte(esc)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
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
			b.WriteRune(r)
		default:
			return "", false
		}
		run := plainPrefix(body[i:]) // the bytes up to the next escape, at once
		b.WriteString(body[i : i+run])
		i += run
	}
	out := b.String()
	return out, utf8.ValidString(out)
}

// hex4 reads the four hex digits of a \u escape at s[i:].
func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	v, err := strconv.ParseUint(s[i:i+4], 16, 16)
	return rune(v), err == nil
}

// plainPrefix is the length of the longest prefix of s without a quote, a backslash
// or a control character: what a JSON string copies as it is. It tests eight bytes at
// a time (each test exact for the word as a whole) and finds the byte in the word that
// stopped it one at a time; most of a transcript is long runs of plain text.
func plainPrefix(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if hasSpecialByte(w) {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// hasSpecialByte reports whether a byte of w is below 0x20, a quote or a backslash,
// with the classic word tests for a byte below n and for a zero byte ("Bit Twiddling
// Hacks": hasless, haszero).
func hasSpecialByte(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	control := (w - 0x20*ones) &^ w & highs
	q := w ^ '"'*ones
	quote := (q - ones) &^ q & highs
	bs := w ^ '\\'*ones
	backslash := (bs - ones) &^ bs & highs
	return control|quote|backslash != 0
}
