package check

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// printable is text from the server (titles, categories, the server's sentences and
// the file's problems, which quote the upload) made safe to print to a terminal: a
// control character, a format character such as a right-to-left override, or a byte
// that is not UTF-8 is written as its Go escape (\x1b, \u202e), so the text cannot
// move the cursor, recolour or reorder what the job's log shows.
func printable(s string) string {
	if !strings.ContainsFunc(s, needsEscape) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case needsEscape(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

func needsEscape(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }
