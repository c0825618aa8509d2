package pipeline

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSelectForDiagnosis(t *testing.T) {
	t.Parallel()
	flagged := []bool{false, true, false, false, true, false, false, false}

	all := SelectForDiagnosis("task", flagged, 0)
	require.Equal(t, []bool{true, true, true, true, true, true, true, true}, all)

	sel := SelectForDiagnosis("task", flagged, 4)
	require.Equal(t, 4, count(sel))
	require.True(t, sel[1] && sel[4], "flagged conversations are always selected")
	require.Equal(t, sel, SelectForDiagnosis("task", flagged, 4), "deterministic for a task")

	differs := false
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		other := SelectForDiagnosis(id, flagged, 4)
		require.Equal(t, 4, count(other))
		differs = differs || !equalBools(other, sel)
	}
	require.True(t, differs, "the sample depends on the task id")

	over := SelectForDiagnosis("task", flagged, 1)
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
