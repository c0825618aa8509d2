package ingest

import "bytes"

// surrogates finds \uD800–\uDFFF escapes in JSON text that do not form a UTF-16 pair.
// encoding/json turns such a lone surrogate into U+FFFD in decoded strings, but metadata
// is kept as the file wrote it and PostgreSQL refuses the escape in jsonb, so uploads
// with one are refused where it stands. The scanner keeps its state between chunks, so
// an escape cut by a read boundary is still seen.
type surrogates struct {
	state  int  // one of the scan* states
	digits int  // hex digits read of the current \u escape
	value  rune // their value so far
}

// States of the scan: inside an escape, or waiting for the low half of a pair.
const (
	scanText      = iota // ordinary text
	scanEscape           // after a backslash
	scanHex              // reading the four digits of \u
	scanNeedSlash        // a high surrogate was read; a \u escape must follow
	scanNeedU            // ... its backslash was read
	scanLowHex           // reading the digits of the low half
)

// scan reads b and returns the index of the first byte of a lone surrogate's escape (or
// of the byte where its missing low half should have begun), or -1.
func (s *surrogates) scan(b []byte) int {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch s.state {
		case scanText:
			j := bytes.IndexByte(b[i:], '\\')
			if j < 0 {
				return -1
			}
			i += j
			s.state = scanEscape
		case scanEscape:
			s.state = scanText
			if c == 'u' {
				s.state, s.digits, s.value = scanHex, 0, 0
			}
		case scanHex, scanLowHex:
			d, ok := hexDigit(c)
			if !ok {
				s.state = scanText // not JSON: the decoder says so
				continue
			}
			s.value = s.value<<4 | d
			if s.digits++; s.digits < 4 {
				continue
			}
			high, low := s.value >= 0xD800 && s.value <= 0xDBFF, s.value >= 0xDC00 && s.value <= 0xDFFF
			switch {
			case s.state == scanLowHex && low:
				s.state = scanText
			case s.state == scanLowHex, low:
				s.state = scanText
				return max(i-5, 0)
			case high:
				s.state = scanNeedSlash
			default:
				s.state = scanText
			}
		case scanNeedSlash:
			if c != '\\' {
				s.state = scanText
				return i
			}
			s.state = scanNeedU
		case scanNeedU:
			if c != 'u' {
				s.state = scanText
				return i
			}
			s.state, s.digits, s.value = scanLowHex, 0, 0
		}
	}
	return -1
}

// hexDigit reads one hex digit.
func hexDigit(c byte) (rune, bool) {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0'), true
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10, true
	}
	return 0, false
}

// hasLoneSurrogate reports whether one complete piece of JSON text holds a lone
// surrogate escape.
func hasLoneSurrogate(b []byte) bool {
	if bytes.IndexByte(b, '\\') < 0 {
		return false
	}
	var s surrogates
	if s.scan(b) >= 0 {
		return true
	}
	return s.state == scanNeedSlash || s.state == scanNeedU || s.state == scanLowHex
}

// loneSurrogateMsg is the problem recorded at the line of a lone surrogate.
const loneSurrogateMsg = "ingest.lone_surrogate"
