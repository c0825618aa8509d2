package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAUROC(t *testing.T) {
	t.Parallel()
	require.InDelta(t, 1.0, AUROC([]float64{3, 2, 1, 0}, []bool{true, true, false, false}), 1e-9)
	require.InDelta(t, 0.0, AUROC([]float64{0, 1, 2}, []bool{true, false, false}), 1e-9)
	require.InDelta(t, 0.5, AUROC([]float64{1, 1, 1, 1}, []bool{true, false, true, false}), 1e-9)
	require.InDelta(t, 0.875, AUROC([]float64{2, 1, 1, 0}, []bool{true, true, false, false}), 1e-9) // pairs: win, win, tie, win
	require.True(t, math.IsNaN(AUROC([]float64{1, 2}, []bool{true, true})))
}
