package textmatch

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
)

// The plain implementations the fast ones in textmatch.go, shingles.go and terms.go must
// agree with: fold rune by rune keeping the map of every byte, search one phrase at a
// time, sort every bigram set, hash the folded text rune by rune, split terms from runes. Risk flags, content hashes and
// the offline analyzer's findings (whose quality is measured) depend on them, so the
// fast paths are checked against these on the sample's texts and on random text.

func refFold(s string) (string, []int) {
	var b strings.Builder
	pos := make([]int, 0, len(s)+1)
	space := false
	for i, r := range s {
		f := foldRune(r)
		if f == ' ' {
			if space {
				continue
			}
			space = true
		} else {
			space = false
		}
		n := b.Len()
		b.WriteRune(f)
		for range b.Len() - n {
			pos = append(pos, i)
		}
	}
	return b.String(), append(pos, len(s))
}

func refFind(ps PhraseSet, text string) (int, int, bool) {
	best, bestEnd := -1, -1
	for _, p := range ps.phrases {
		off := 0
		for {
			i := strings.Index(text[off:], p.text)
			if i < 0 {
				break
			}
			i += off
			end := i + len(p.text)
			okLeft := !p.boundLeft || i == 0 || !isWordRune(lastRune(text[:i]))
			okRight := !p.boundRt || end == len(text) || !isWordRune(firstRune(text[end:]))
			if okLeft && okRight {
				if best < 0 || i < best || (i == best && end > bestEnd) {
					best, bestEnd = i, end
				}
				break
			}
			off = i + len(string(firstRune(text[i:])))
		}
	}
	return best, bestEnd, best >= 0
}

func refShingles(s string) ShingleSet {
	t, _ := refFold(s)
	rs := []rune(t)
	if len(rs) < 2 {
		if len(rs) == 1 {
			return ShingleSet{uint64(rs[0])}
		}
		return nil
	}
	set := make([]uint64, 0, len(rs)-1)
	for i := 1; i < len(rs); i++ {
		set = append(set, uint64(rs[i-1])<<32|uint64(rs[i]))
	}
	slices.Sort(set)
	return ShingleSet(slices.Compact(set))
}

func TestFastTextMatchAgreesWithReference(t *testing.T) {
	t.Parallel()
	texts, _ := transcripttest.TextCorpus(t)
	sets := []PhraseSet{
		NewPhraseSet("ignore previous instructions", "system prompt", "忽略之前的指令", "越狱", "without any restrictions"),
		NewPhraseSet("human agent", "real person", "转人工", "人工客服", "supervisor"),
		NewPhraseSet("i'm unable to", "i cannot", "unable", "无法为您", "不能"),
		NewPhraseSet("error", "not found", "failed", "错误", "失败"),
		NewPhraseSet("ok", "a", "I’m unable to", "转人工", "error", "not", "not found", "é", "ⱥ b")}
	for _, text := range texts {
		want, pos := refFold(text)
		f := Fold(text)
		require.Equal(t, want, f.Text, "%q", text)
		require.Equal(t, want, FoldString(text))
		require.Equal(t, "X"+strings.Trim(want, " "), string(AppendFold([]byte("X"), text)), "AppendFold of %q", text)
		for i := 0; i <= len(want); i += 1 + i/8 {
			for _, j := range []int{i, min(i+3, len(want)), len(want)} {
				a, b := f.Span(i, j)
				require.Equal(t, [2]int{pos[i], pos[j]}, [2]int{a, b}, "Span(%d, %d) of %q", i, j, text)
			}
		}
		for _, ps := range sets {
			start, end, ok := refFind(ps, f.Text)
			m, found := ps.Find(f)
			require.Equal(t, ok, found, "%q", text)
			require.Equal(t, ok, ps.Contains(f))
			if ok {
				require.Equal(t, [2]int{pos[start], pos[end]}, [2]int{m.Start, m.End}, "%q", text)
			}
		}
		require.Equal(t, refShingles(text), Shingles(text), "%q", text)
		require.Equal(t, refTerms(text), Terms(text), "%q", text)
		long := strings.Repeat(text+" ", 300/(len(text)+1)+1)
		require.Equal(t, refShingles(long), Shingles(long), "the bit set of long Latin-1 texts")
	}
}

// refTerms splits terms rune by rune, building each from its runes.
func refTerms(s string) []string {
	var terms []string
	var word, cjk []rune
	flush := func() {
		if len(word) > 0 {
			w := string(word)
			if i := strings.IndexByte(w, '\''); i >= 0 {
				w = w[:i]
			}
			if w != "" {
				terms = append(terms, w)
			}
			word = word[:0]
		}
		switch len(cjk) {
		case 0:
		case 1:
			terms = append(terms, string(cjk))
		default:
			for i := 1; i < len(cjk); i++ {
				terms = append(terms, string(cjk[i-1:i+1]))
			}
		}
		cjk = cjk[:0]
	}
	for _, r := range FoldString(s) {
		switch {
		case isCJK(r):
			if len(word) > 0 {
				flush()
			}
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || (r == '\'' && len(word) > 0):
			if len(cjk) > 0 {
				flush()
			}
			word = append(word, r)
		default:
			flush()
		}
	}
	flush()
	return terms
}

// JaccardAtLeast, which stops counting early, keeps a pair exactly when the full count
// says it is similar enough, with its value, and Jaccard is that count: on the sample's texts paired with the next
// one (mostly far apart) and with themselves cut short (mostly close).
func TestJaccardAtLeastAgreesWithJaccard(t *testing.T) {
	t.Parallel()
	texts, _ := transcripttest.TextCorpus(t)
	thresholds := []float64{0, 0.1, 0.5, 0.7, 0.85, 0.99, 1}
	kept := 0
	for i, text := range texts {
		others := []string{texts[(i+1)%len(texts)], text[:len(text)*9/10], ""}
		for _, other := range others {
			a, b := Shingles(text), Shingles(other)
			want := refJaccard(a, b)
			require.Equal(t, want, a.Jaccard(b), "%q and %q", text, other)
			for _, th := range thresholds {
				got, ok := a.JaccardAtLeast(b, th)
				require.Equal(t, want >= th, ok, "%q and %q at %v", text, other, th)
				if ok {
					kept++
					require.Equal(t, want, got, "%q and %q", text, other)
				}
			}
		}
	}
	require.Positive(t, kept)
}

// refJaccard counts the shared elements of two sets through a map.
func refJaccard(a, b ShingleSet) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	in := map[uint64]bool{}
	for _, x := range a {
		in[x] = true
	}
	inter := 0
	for _, x := range b {
		if in[x] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// sharedNeeded is the fewest shared elements that reach a threshold as Jaccard rounds
// it, checked against counting up, at the thresholds where rounding matters most: each
// reachable value and its floating-point neighbours.
func TestSharedNeededCountsAsJaccardRounds(t *testing.T) {
	t.Parallel()
	for m := 0; m <= 60; m++ {
		for n := max(m, 1); n <= 60; n++ {
			for k := 0; k <= m; k++ {
				at := jaccard(k, m+n)
				for _, th := range []float64{math.Nextafter(at, -1), at, math.Nextafter(at, 2)} {
					want := 0
					for want <= m && jaccard(want, m+n) < th {
						want++
					}
					got, ok := sharedNeeded(m, n, th)
					require.Equal(t, want <= m, ok, "m=%d n=%d t=%v", m, n, th)
					if ok {
						require.Equal(t, want, got, "m=%d n=%d t=%v", m, n, th)
					}
				}
			}
		}
	}
}
