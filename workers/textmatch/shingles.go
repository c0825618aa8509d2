package textmatch

import (
	"math"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// ShingleSet is the sorted set of rune bigrams of a folded text, the unit of text
// similarity: it needs no word segmentation, so it compares Chinese as well as English.
type ShingleSet []uint64

// Shingles returns the bigram set of s after folding.
func Shingles(s string) ShingleSet {
	t := FoldString(s)
	return FoldedShingles(t, utf8.RuneCountInString(t))
}

// FoldedShingles is Shingles of a text t that is folded already (FoldString) and n
// runes long, for a caller that has folded and counted it.
func FoldedShingles(t string, n int) ShingleSet {
	if n < 2 {
		if n == 1 {
			r, _ := utf8.DecodeRuneInString(t)
			return ShingleSet{uint64(r)}
		}
		return nil
	}
	if n >= latin1Min && latin1(t) {
		return latin1Shingles(t)
	}
	return sortedShingles(t, n)
}

// latin1Min is the fewest runes for which the bit set beats sorting
// (BenchmarkShinglesByLength): it is cleared whole for every text.
const latin1Min = 16

// sortedShingles is Shingles for any text of n runes: its bigrams sorted.
func sortedShingles(t string, n int) ShingleSet {
	set := make([]uint64, 0, n-1)
	prev := rune(-1)
	for _, r := range t {
		if prev >= 0 {
			set = append(set, uint64(prev)<<32|uint64(r))
		}
		prev = r
	}
	slices.Sort(set)
	return ShingleSet(slices.Compact(set))
}

// latin1 reports whether every rune of s is below U+0100.
func latin1(s string) bool {
	for _, r := range s {
		if r > 0xFF {
			return false
		}
	}
	return true
}

// latin1Shingles is Shingles for a text of runes below U+0100: each bigram has one bit
// in a 64 Kbit set, read back in order, so no sort is needed. A second level marks the
// set's words that have a bit, so reading back visits those only: a short message
// touches a few dozen of the 1,024.
func latin1Shingles(t string) ShingleSet {
	var seen [1 << 16 / 64]uint64
	var used [len(seen) / 64]uint64 // bit w: seen[w] is not zero
	count := 0
	prev := rune(-1)
	for _, r := range t {
		if prev >= 0 {
			k := prev<<8 | r
			w := k / 64
			if seen[w]&(1<<(k%64)) == 0 {
				seen[w] |= 1 << (k % 64)
				used[w/64] |= 1 << (w % 64)
				count++
			}
		}
		prev = r
	}
	set := make(ShingleSet, 0, count)
	for u, words := range used {
		for words != 0 {
			w := u*64 + bits.TrailingZeros64(words)
			words &= words - 1
			for word := seen[w]; word != 0; word &= word - 1 {
				k := uint64(w*64 + bits.TrailingZeros64(word))
				set = append(set, k>>8<<32|k&0xFF)
			}
		}
	}
	return set
}

// Jaccard returns |a∩b| / |a∪b|, 1 for two empty sets.
func (a ShingleSet) Jaccard(b ShingleSet) float64 {
	s, _ := a.JaccardAtLeast(b, 0) // every pair reaches 0: the count runs to the end
	return s
}

// JaccardAtLeast reports whether |a∩b| / |a∪b| is at least t, and returns it when it is
// (the value means nothing when the bool is false). It stops counting once the elements
// left could no longer share enough: most pairs compared are far from similar, and
// that shows early.
func (a ShingleSet) JaccardAtLeast(b ShingleSet, t float64) (float64, bool) {
	if len(a) == 0 && len(b) == 0 {
		return 1, 1 >= t
	}
	need, ok := sharedNeeded(len(a), len(b), t)
	if !ok {
		return 0, false
	}
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
			continue
		case a[i] < b[j]:
			i++
		default:
			j++
		}
		if inter+min(len(a)-i, len(b)-j) < need {
			return 0, false
		}
	}
	s := jaccard(inter, len(a)+len(b))
	return s, s >= t
}

// sharedNeeded is the fewest shared elements for which two sets of sizes m and n (not
// both empty) have a Jaccard of at least t, computed as Jaccard computes it so that
// stopping short never turns away a pair it would keep; false when even the smaller
// set shared whole falls short.
func sharedNeeded(m, n int, t float64) (int, bool) {
	most := min(m, n)
	k := min(max(int(math.Ceil(t*float64(m+n)/(1+t))), 0), most)
	for k > 0 && jaccard(k-1, m+n) >= t {
		k--
	}
	for k <= most && jaccard(k, m+n) < t {
		k++
	}
	return k, k <= most
}

// jaccard is |a∩b| / |a∪b| for inter shared elements of sets whose sizes add up to total.
func jaccard(inter, total int) float64 { return float64(inter) / float64(total-inter) }

// Similarity is the Jaccard similarity of the bigram sets of a and b, 0..1.
func Similarity(a, b string) float64 { return Shingles(a).Jaccard(Shingles(b)) }
