package textmatch

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFoldStringEightBytesAtOnce folds random texts over the bytes at the edges of what
// folds eight at a time (the capitals' neighbours, spaces, the other white space, a
// control byte, DEL, a byte above ASCII) and of runs of words that hold none of them,
// at every length and offset, and compares with the fold rune by rune.
func TestFoldStringEightBytesAtOnce(t *testing.T) {
	t.Parallel()
	edges := []string{"@", "A", "M", "Z", "[", "`", "a", "z", "{", "~", " ", " ", " ", "\t", "\n", "\r", "\v", "\f",
		"\x00", "\x01", "\x1f", "\x7f", "é", "Ｚ", "\u3000", "\xff"}
	r := rand.New(rand.NewPCG(5, 6))
	for range 20_000 {
		var b strings.Builder
		for range r.IntN(40) {
			if r.IntN(4) == 0 {
				b.WriteString(strings.Repeat("x", r.IntN(12)))
			}
			b.WriteString(edges[r.IntN(len(edges))])
		}
		s := b.String()
		want, _ := refFold(s)
		require.Equal(t, want, FoldString(s), "%q", s)
	}
}
