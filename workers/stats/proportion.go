package stats

import "math"

// TwoProportions is the two-sided p-value of the test that x1 of n1 and x2 of n2 are
// drawn from one proportion: Fisher's exact test when the table is small (an expected
// count under 5 in any of its four cells, where the normal approximation is poor), and
// otherwise the pooled two-proportion z-test, whose p is erfc(|z|/√2). Counts outside
// 0..n are clamped. Two empty groups, or a proportion of 0 or 1 in both, give 1.
func TwoProportions(x1, n1, x2, n2 int) float64 {
	n1, n2 = max(n1, 0), max(n2, 0)
	x1, x2 = min(max(x1, 0), n1), min(max(x2, 0), n2)
	n := n1 + n2
	if n == 0 {
		return 1
	}
	with := x1 + x2
	if with == 0 || with == n {
		return 1
	}
	t := Table{FailedWith: x2, SucceededWith: n2 - x2, FailedWithout: x1, SucceededWithout: n1 - x1}
	smallest := float64(min(n1, n2)) * float64(min(with, n-with)) / float64(n)
	if smallest < 5 {
		return FisherExact(t)
	}
	p := float64(with) / float64(n)
	se := math.Sqrt(p * (1 - p) * (1/float64(n1) + 1/float64(n2)))
	z := (float64(x2)/float64(n2) - float64(x1)/float64(n1)) / se
	return min(math.Erfc(math.Abs(z)/math.Sqrt2), 1)
}
