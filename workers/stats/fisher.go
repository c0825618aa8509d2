package stats

import (
	"math"
	"slices"
)

// Table is a 2×2 contingency table of conversations: whether they have a feature (are in
// a cluster) against whether they failed.
type Table struct {
	FailedWith, SucceededWith       int // conversations with the feature
	FailedWithout, SucceededWithout int // conversations without it
}

// With is the number of conversations with the feature.
func (t Table) With() int { return t.FailedWith + t.SucceededWith }

// Failed is the number of failed conversations.
func (t Table) Failed() int { return t.FailedWith + t.FailedWithout }

// Total is the number of conversations in the table.
func (t Table) Total() int { return t.With() + t.FailedWithout + t.SucceededWithout }

// RateWith is the failure rate of the conversations with the feature; 0 when none has it.
func (t Table) RateWith() float64 { return rate(t.FailedWith, t.With()) }

// RateWithout is the failure rate of the conversations without the feature.
func (t Table) RateWithout() float64 {
	return rate(t.FailedWithout, t.FailedWithout+t.SucceededWithout)
}

// Lift is how many times more often conversations with the feature failed than
// conversations overall: RateWith over the failure rate of the whole table; 0 when
// nothing failed.
func (t Table) Lift() float64 {
	base := rate(t.Failed(), t.Total())
	if base == 0 {
		return 0
	}
	return t.RateWith() / base
}

// ExcessFailures is how many more of the conversations with the feature failed than
// the overall failure rate predicts: the failures the feature explains.
func (t Table) ExcessFailures() float64 {
	return float64(t.FailedWith) - float64(t.With())*rate(t.Failed(), t.Total())
}

func rate(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// FisherExact is the two-sided p-value of Fisher's exact test on the table: the
// probability, with the margins fixed, of a table at least as unlikely as this one
// (the tables whose hypergeometric probability is at most this table's, with a
// relative tolerance of 1e-7 for ties computed in floating point).
func FisherExact(t Table) float64 {
	return fisherExact(t, nil)
}

// Fisher runs Fisher's exact test on many tables, keeping log i! for every i up to the
// largest table's total: the test sums over every table with the same margins,
// thousands for a feature of a large task, with six log factorials each, and a search
// for failure drivers tests thousands of features on tables of one size. The zero
// value is ready; it is not safe for concurrent use.
type Fisher struct {
	logFactorials []float64 // logFactorials[i] is log i! = log Γ(i+1)
}

// Exact is FisherExact(t), to the last bit.
func (f *Fisher) Exact(t Table) float64 {
	for i := len(f.logFactorials); i <= t.Total(); i++ {
		f.logFactorials = append(f.logFactorials, lgamma(i+1))
	}
	return fisherExact(t, f.logFactorials)
}

// fisherExact is the test with log i! read from logFactorials, or worked out as it is
// needed when that is nil, as for a one-off test: filling a table up to a large total
// would cost more than the sum itself.
func fisherExact(t Table, logFactorials []float64) float64 {
	a, b, c, d := t.FailedWith, t.SucceededWith, t.FailedWithout, t.SucceededWithout
	if a < 0 || b < 0 || c < 0 || d < 0 {
		return math.NaN()
	}
	row1, col1, n := a+b, a+c, a+b+c+d
	lo, hi := max(0, row1+col1-n), min(row1, col1)
	logFactorial := func(i int) float64 {
		if logFactorials != nil {
			return logFactorials[i]
		}
		return lgamma(i + 1)
	}
	lchoose := func(m, k int) float64 { return logFactorial(m) - logFactorial(k) - logFactorial(m-k) }
	tables := lchoose(n, row1)
	logP := func(x int) float64 {
		return lchoose(col1, x) + lchoose(n-col1, row1-x) - tables
	}
	observed := logP(a)
	p := 0.0
	for x := lo; x <= hi; x++ {
		if lp := logP(x); lp <= observed+1e-7*math.Abs(observed)+1e-12 {
			p += math.Exp(lp)
		}
	}
	return min(p, 1)
}

// lgamma is log Γ(x) of a positive integer.
func lgamma(x int) float64 {
	v, _ := math.Lgamma(float64(x))
	return v
}

// BenjaminiHochberg turns the p-values of a family of tests into q-values that control
// the false discovery rate: q_i = min over j with p_j ≥ p_i of p_j·m/rank_j, at most 1.
// A test kept at q ≤ 0.05 is wrong in at most 5% of the kept tests on average. The
// result is in the order of ps.
func BenjaminiHochberg(ps []float64) []float64 {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		switch {
		case ps[i] < ps[j]:
			return -1
		case ps[i] > ps[j]:
			return 1
		}
		return 0
	})
	qs := make([]float64, m)
	running := 1.0
	for r := m - 1; r >= 0; r-- {
		i := order[r]
		running = min(running, ps[i]*float64(m)/float64(r+1))
		qs[i] = min(running, 1)
	}
	return qs
}
