package ingest

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonString decodes a JSON string literal (quotes included) that the decoder has
// already validated. Most strings have no escapes and are taken as they are; the rest
// are unescaped here in one pass, as encoding/json would (a lone surrogate becomes
// U+FFFD), without a second validation.
func jsonString(b []byte) string {
	b = b[1 : len(b)-1]
	i := bytes.IndexByte(b, '\\')
	if i < 0 {
		return string(b)
	}
	out := make([]byte, i, len(b))
	copy(out, b[:i])
	for i < len(b) {
		c := b[i]
		if c != '\\' {
			j := bytes.IndexByte(b[i:], '\\')
			if j < 0 {
				j = len(b) - i
			}
			out = append(out, b[i:i+j]...)
			i += j
			continue
		}
		e := b[i+1]
		i += 2
		switch e {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(b[i:])
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
					r2 = utf16.DecodeRune(r, hex4(b[i+2:]))
				}
				if r2 == utf8.RuneError {
					r = utf8.RuneError
				} else {
					r = r2
					i += 6
				}
			}
			out = utf8.AppendRune(out, r)
		default: // '"', '\\' and '/' stand for themselves
			out = append(out, e)
		}
	}
	return string(out)
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
