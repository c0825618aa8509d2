package textmatch

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// BenchmarkShinglesByLength builds the bigram set of an agent's sentence cut to each
// length, with the bit set for Latin-1 text and with the sort every other script takes:
// what decides which Latin-1 texts the bit set is for.
//
//	go test ./workers/textmatch -run '^$' -bench ShinglesByLength
func BenchmarkShinglesByLength(b *testing.B) {
	sentence := FoldString(strings.Repeat("I have cancelled your reservation and the refund of $412.50 will reach your card within 5 to 7 business days. ", 8))
	for _, n := range []int{8, 16, 32, 64, 128, 512} {
		t := sentence[:n]
		b.Run("bits-"+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				latin1Shingles(t)
			}
		})
		b.Run("sort-"+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				sortedShingles(t, utf8.RuneCountInString(t))
			}
		})
	}
}
