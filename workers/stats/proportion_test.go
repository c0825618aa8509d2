package stats_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/stats"
)

func TestTwoProportions(t *testing.T) {
	t.Parallel()
	// Large counts: the pooled z-test. 30 of 200 against 10 of 200: pooled 0.1, standard
	// error 0.03, z = 3.33, p = erfc(3.33/√2) = 0.00086.
	require.InDelta(t, 0.000857, stats.TwoProportions(30, 200, 10, 200), 1e-5)
	// Small counts: Fisher's exact test. 7 of 100 against 0 of 93: the hypergeometric
	// tables at most as likely as this one sum to 0.014373.
	require.InDelta(t, 0.014373, stats.TwoProportions(7, 100, 0, 93), 1e-6)
	require.Equal(t, stats.FisherExact(stats.Table{FailedWith: 0, SucceededWith: 93, FailedWithout: 7, SucceededWithout: 93}),
		stats.TwoProportions(7, 100, 0, 93))
	// The same proportion, or nothing to test.
	require.InDelta(t, 1, stats.TwoProportions(20, 100, 19, 95), 1e-9)
	require.Equal(t, 1.0, stats.TwoProportions(0, 0, 0, 0))
	require.Equal(t, 1.0, stats.TwoProportions(0, 100, 0, 80))
	require.Equal(t, 1.0, stats.TwoProportions(100, 100, 80, 80))
	// Symmetric in the two groups.
	require.InDelta(t, stats.TwoProportions(12, 150, 30, 140), stats.TwoProportions(30, 140, 12, 150), 1e-12)
	require.InDelta(t, stats.TwoProportions(3, 20, 9, 25), stats.TwoProportions(9, 25, 3, 20), 1e-12)
}
