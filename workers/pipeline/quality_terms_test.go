package pipeline

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// A batch whose conversations bring many words of their own (ids, data) is written as
// several sets of posting lists, each named by its first conversation, so what the
// batch holds in memory stays bounded.
func TestQualityBatchSplitsItsPostingListsAtMaxBatchTerms(t *testing.T) {
	t.Parallel()
	words := func(from, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint("id", from+i)
		}
		return out
	}
	var w qualityWrites
	w.addTerms(1, words(0, maxBatchTerms/2))
	w.addTerms(2, words(maxBatchTerms/2, maxBatchTerms/2)) // reaches the bound
	w.addTerms(4, []string{"refund"})
	w.addTerms(5, words(0, 3))
	require.Len(t, w.search, 2)
	require.Equal(t, int32(1), w.search[0].First())
	require.Equal(t, maxBatchTerms+1, w.search[0].Terms(), "the empty term's list and every id")
	require.Equal(t, int32(4), w.search[1].First())
	require.Equal(t, 5, w.search[1].Terms())
}
