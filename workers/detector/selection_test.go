package detector

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/stats"
)

// TestWeightedAUROCCountsRowsAsOftenAsWeighed: with every weight one it is the AUROC,
// ties included; a weight of two is the row twice, and zero leaves it out.
func TestWeightedAUROCCountsRowsAsOftenAsWeighed(t *testing.T) {
	t.Parallel()
	scores := []float64{0.1, 0.4, 0.4, 0.35, 0.8, 0.8, 0.2}
	failed := []bool{false, true, false, false, true, false, true}
	order := ascending(scores)
	ones := []int{1, 1, 1, 1, 1, 1, 1}
	got, ok := weightedAUROC(scores, order, failed, ones)
	require.True(t, ok)
	require.InDelta(t, stats.AUROC(scores, failed), got, 1e-12)

	weight := []int{2, 0, 1, 1, 1, 1, 1}
	var s []float64
	var f []bool
	for i, w := range weight {
		for range w {
			s, f = append(s, scores[i]), append(f, failed[i])
		}
	}
	got, ok = weightedAUROC(scores, order, failed, weight)
	require.True(t, ok)
	require.InDelta(t, stats.AUROC(s, f), got, 1e-12)

	_, ok = weightedAUROC(scores, order, failed, []int{1, 0, 1, 1, 0, 1, 0})
	require.False(t, ok, "no failure weighed")
}

// TestSelectionOptimismGrowsWithChoiceAmongNoise: choosing among variants whose scores
// are noise flatters the best of them, and the optimism says by about how much; one
// variant, or several alike, flatter nothing.
func TestSelectionOptimismGrowsWithChoiceAmongNoise(t *testing.T) {
	t.Parallel()
	const n = 120
	rng := rand.New(rand.NewPCG(7, 7))
	failed, groups := make([]bool, n), make([]int, n)
	for i := range n {
		failed[i], groups[i] = i%3 == 0, i/2*2 // pairs of rows share a group
	}
	noise := func() []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = rng.Float64()
		}
		return s
	}
	outs := [][]float64{noise(), noise(), noise(), noise(), noise(), noise(), noise(), noise()}
	best, bestAUROC := 0, 0.0
	for v, s := range outs {
		if a := stats.AUROC(s, failed); a > bestAUROC {
			best, bestAUROC = v, a
		}
	}
	optimism := selectionOptimism(outs, failed, groups, best)
	// It gives back at least the best noise's lead over chance, and errs on the low
	// side by no more than that lead again.
	require.GreaterOrEqual(t, optimism, bestAUROC-0.5, "the best of eight noise variants (AUROC %.3f)", bestAUROC)
	require.LessOrEqual(t, optimism, 2*(bestAUROC-0.5)+0.01)

	require.Zero(t, selectionOptimism(outs[:1], failed, groups, 0), "one variant")
	same := [][]float64{outs[best], outs[best], outs[best]}
	require.Zero(t, selectionOptimism(same, failed, groups, 0), "variants alike")
}
