package detector

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSuggestionsSpreadOverTheUploadWithoutADetector: with no detector, the first
// suggestions take one conversation of each stratum before a second of any.
func TestSuggestionsSpreadOverTheUploadWithoutADetector(t *testing.T) {
	t.Parallel()
	var cands []Candidate
	for i := range 30 {
		cands = append(cands, Candidate{Seq: i + 1, Stratum: []string{"a", "a", "a", "b", "b", "c"}[i%6]})
	}
	order := SuggestOrder(cands, false, ShortOfNone, 7)
	require.Len(t, order, 30)
	strata := map[int]string{}
	for _, c := range cands {
		strata[c.Seq] = c.Stratum
	}
	require.Equal(t, []string{"a", "b", "c"}, []string{strata[order[0]], strata[order[1]], strata[order[2]]},
		"the largest stratum first, then one of each")
	require.Equal(t, order, SuggestOrder(cands, false, ShortOfNone, 7), "the same input, the same order")
	require.NotEqual(t, order, SuggestOrder(cands, false, ShortOfNone, 8), "another seed draws another order within strata")
}

// TestSuggestionsAskWhereTheDetectorIsUnsure: with a detector, the scores nearest 0.5
// come first, and every fifth suggestion is a random pick.
func TestSuggestionsAskWhereTheDetectorIsUnsure(t *testing.T) {
	t.Parallel()
	var cands []Candidate
	for i := range 100 {
		cands = append(cands, Candidate{Seq: i + 1, Score: float64(i) / 99})
	}
	order := SuggestOrder(cands, true, ShortOfNone, 1)
	require.Len(t, order, 100)
	seen := map[int]bool{}
	for _, s := range order {
		require.False(t, seen[s], "seq %d twice", s)
		seen[s] = true
	}
	for i, seq := range order[:12] {
		if (i+1)%randomShare == 0 {
			continue
		}
		require.InDelta(t, 0.5, cands[seq-1].Score, 0.1, fmt.Sprintf("suggestion %d", i+1))
	}
}

// TestSuggestionsSeekTheOutcomeLabelsAreShortOf: while the labels are short of
// successes, two suggestions in three are the conversations the analysis scores least
// likely to have failed; short of failures, the likeliest.
func TestSuggestionsSeekTheOutcomeLabelsAreShortOf(t *testing.T) {
	t.Parallel()
	var cands []Candidate
	for i := range 60 {
		cands = append(cands, Candidate{Seq: i + 1, Score: float64(i) / 59, Stratum: []string{"a", "b", "c"}[i%3]})
	}
	low := func(order []int) int {
		n := 0
		for _, seq := range order[:9] {
			if cands[seq-1].Score < 0.2 {
				n++
			}
		}
		return n
	}
	high := func(order []int) int {
		n := 0
		for _, seq := range order[:9] {
			if cands[seq-1].Score > 0.8 {
				n++
			}
		}
		return n
	}
	require.GreaterOrEqual(t, low(SuggestOrder(cands, false, ShortOfSucceeded, 3)), 6, "short of successes")
	require.GreaterOrEqual(t, high(SuggestOrder(cands, false, ShortOfFailed, 3)), 6, "short of failures")
	require.Equal(t, ShortOfSucceeded, ShortOf(MinPerOutcome+5, 2))
	require.Equal(t, ShortOfFailed, ShortOf(0, 4))
	require.Equal(t, ShortOfNone, ShortOf(MinPerOutcome, MinPerOutcome+20))
	order := SuggestOrder(cands, false, ShortOfSucceeded, 3)
	require.Len(t, order, 60)
	seen := map[int]bool{}
	for _, s := range order {
		require.False(t, seen[s])
		seen[s] = true
	}
}
