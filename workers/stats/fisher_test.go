package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The expected values are computed by hand from the hypergeometric distribution (and
// agree with R's fisher.test and SciPy's fisher_exact).
func TestFisherExact(t *testing.T) {
	t.Parallel()
	// Fisher's tea: 3 of 4 cups right. Margins 4/4, 4/4: tables x=0..4 have
	// probabilities 1, 16, 36, 16, 1 over 70; x=3 and at least as unlikely: 16+1+16+1.
	require.InDelta(t, 34.0/70, FisherExact(Table{3, 1, 1, 3}), 1e-12)
	// All four right: x=4 and x=0, 2/70.
	require.InDelta(t, 2.0/70, FisherExact(Table{4, 0, 0, 4}), 1e-12)
	// Margins 1/9 and 5/5 (n=10): P(x=1) = P(x=0) = 1/2, so p = 1.
	require.InDelta(t, 1.0, FisherExact(Table{1, 0, 4, 5}), 1e-12)
	// 8 of 10 with the feature failed, 2 of 10 without; hypergeometric over n=20,
	// 10 failed: p = 2 × (P(8)+P(9)+P(10)) = 2 × (2025+100+1)/184756.
	require.InDelta(t, 2*2126.0/184756, FisherExact(Table{8, 2, 2, 8}), 1e-12)
	require.Equal(t, 1.0, FisherExact(Table{0, 0, 0, 0}))
}

// The p-value is the same, to the last bit, as the test written out with math.Lgamma,
// on large tables and small ones, whether a Fisher has seen larger tables before or not.
func TestFisherExactAsWrittenOut(t *testing.T) {
	t.Parallel()
	lchoose := func(n, k int) float64 {
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(k + 1))
		c, _ := math.Lgamma(float64(n - k + 1))
		return a - b - c
	}
	writtenOut := func(tb Table) float64 {
		a, b, c, d := tb.FailedWith, tb.SucceededWith, tb.FailedWithout, tb.SucceededWithout
		row1, col1, n := a+b, a+c, a+b+c+d
		logP := func(x int) float64 { return lchoose(col1, x) + lchoose(n-col1, row1-x) - lchoose(n, row1) }
		observed, p := logP(a), 0.0
		for x := max(0, row1+col1-n); x <= min(row1, col1); x++ {
			if lp := logP(x); lp <= observed+1e-7*math.Abs(observed)+1e-12 {
				p += math.Exp(lp)
			}
		}
		return min(p, 1)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var shared Fisher
	for i := range 600 {
		size := []int{10, 12_500, 200}[i%3]
		tb := Table{rng.IntN(size), rng.IntN(size), rng.IntN(size), rng.IntN(size)}
		want := writtenOut(tb)
		require.Equal(t, want, FisherExact(tb), "%+v", tb)
		require.Equal(t, want, shared.Exact(tb), "%+v", tb)
	}
}

func TestTableRates(t *testing.T) {
	t.Parallel()
	tb := Table{FailedWith: 8, SucceededWith: 2, FailedWithout: 2, SucceededWithout: 8}
	require.InDelta(t, 0.8, tb.RateWith(), 1e-12)
	require.InDelta(t, 0.2, tb.RateWithout(), 1e-12)
	require.InDelta(t, 1.6, tb.Lift(), 1e-12)           // 0.8 / 0.5
	require.InDelta(t, 3.0, tb.ExcessFailures(), 1e-12) // 8 − 10 × 0.5
	require.Zero(t, Table{}.Lift())
}

func TestBenjaminiHochberg(t *testing.T) {
	t.Parallel()
	// m = 5, by rank: 0.001·5/1 = 0.005, 0.01·5/2 = 0.025, 0.04·5/3 = 0.0667,
	// 0.05·5/4 = 0.0625, 0.2·5/5 = 0.2; the running minimum from the largest down lowers
	// rank 3 to 0.0625.
	ps := []float64{0.04, 0.001, 0.2, 0.01, 0.05}
	require.InDeltaSlice(t, []float64{0.0625, 0.005, 0.2, 0.025, 0.0625}, BenjaminiHochberg(ps), 1e-12)
	// A larger p earlier in rank order caps the smaller ones before it: 0.03·3/2 = 0.045
	// and 0.031·3/3 = 0.031, so rank 2 becomes 0.031.
	require.InDeltaSlice(t, []float64{0.03, 0.031, 0.031}, BenjaminiHochberg([]float64{0.01, 0.03, 0.031}), 1e-12)
	require.Empty(t, BenjaminiHochberg(nil))
}
