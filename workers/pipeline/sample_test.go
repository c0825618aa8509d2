package pipeline

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSelectForDiagnosis(t *testing.T) {
	t.Parallel()
	flagged := []bool{false, true, false, false, true, false, false, false}

	all := SelectForDiagnosis("task", flagged, nil, 0)
	require.Equal(t, []bool{true, true, true, true, true, true, true, true}, all)

	sel := SelectForDiagnosis("task", flagged, nil, 4)
	require.Equal(t, 4, count(sel))
	require.True(t, sel[1] && sel[4], "flagged conversations are always selected")
	require.Equal(t, sel, SelectForDiagnosis("task", flagged, nil, 4), "deterministic for a task")

	differs := false
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		other := SelectForDiagnosis(id, flagged, nil, 4)
		require.Equal(t, 4, count(other))
		differs = differs || !equalBools(other, sel)
	}
	require.True(t, differs, "the sample depends on the task id")

	over := SelectForDiagnosis("task", flagged, nil, 1)
	require.Equal(t, []bool{false, true, false, false, true, false, false, false}, over,
		"flagged conversations beyond the budget are still all diagnosed")
}

func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func equalBools(a, b []bool) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// TestSelectionFollowsTheDetector: with a detector's scores, the capped budget goes to
// the likeliest failures first, all but one in RandomShare of it, which is drawn from
// the rest; flagged conversations are still all selected.
func TestSelectionFollowsTheDetector(t *testing.T) {
	t.Parallel()
	n := 100
	flagged := make([]bool, n)
	flagged[0] = true
	scores := make([]float64, n)
	for i := range scores {
		scores[i] = float64(i) / float64(n) // the last are the likeliest failures
	}
	sel := SelectForDiagnosis("task", flagged, scores, 21)
	require.Equal(t, 21, count(sel))
	require.True(t, sel[0], "the flagged one")
	room := 20
	top := room - room/RandomShare
	for i := n - top; i < n; i++ {
		require.True(t, sel[i], "the likeliest failure %d", i)
	}
	drawn := 0
	for i := 1; i < n-top; i++ {
		if sel[i] {
			drawn++
		}
	}
	require.Equal(t, room/RandomShare, drawn, "a random share from the rest")
	require.Equal(t, sel, SelectForDiagnosis("task", flagged, scores, 21), "deterministic for a task")
}
