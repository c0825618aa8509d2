package web

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Next to label goes on after a conversation in the order, then wraps to the unlabelled
// ones before it: a conversation the order moved near its end still has a next.
func TestNextToLabelWrapsAround(t *testing.T) {
	t.Parallel()
	o := labelOrder{seqs: []int32{5, 2, 9, 7, 3}, labelled: map[int32]bool{2: true, 7: true}}
	require.Equal(t, []int32{9, 3, 5}, o.nextToLabel(2))
	require.Equal(t, []int32{5, 9}, o.nextToLabel(3), "the last in the order wraps to the first")
	require.Equal(t, []int32{5, 9, 3}, o.nextToLabel(4), "a conversation not in the order starts it")
	require.Equal(t, []int32{3}, o.unlabelledAfter(9), "a page of the list does not wrap")
	o.labelled[5], o.labelled[9], o.labelled[3] = true, true, true
	require.Empty(t, o.nextToLabel(9), "every one labelled: no next")
}
