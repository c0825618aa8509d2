package detector

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/checkup-dev/checkup/workers/stats"
)

// Cross-validation: folds of whole near-duplicate groups, and a bootstrap over those
// groups for the interval, so the stated figure is one for scenarios the model has not
// seen.
const (
	maxFolds   = 5
	bootstraps = 1000
	// intervalLevel is the share of bootstrap AUROCs the interval holds.
	intervalLevel = 0.95
)

// folds assigns each group (by its number in groups) to one of k folds: the largest
// groups first, each to the fold with the fewest failures so far, then the fewest
// conversations, then the lowest number, so every fold gets failures and successes
// when it can. It returns each conversation's fold and k.
func folds(groups []int, failed []bool) ([]int, int) {
	type group struct {
		id, size, failed int
	}
	byID := map[int]*group{}
	var order []*group
	for i, g := range groups {
		gr, ok := byID[g]
		if !ok {
			gr = &group{id: g}
			byID[g] = gr
			order = append(order, gr)
		}
		gr.size++
		if failed[i] {
			gr.failed++
		}
	}
	k := min(maxFolds, len(order))
	slices.SortStableFunc(order, func(a, b *group) int {
		return cmp.Or(cmp.Compare(b.size, a.size), cmp.Compare(a.id, b.id))
	})
	foldFailed, foldSize := make([]int, k), make([]int, k)
	foldOf := map[int]int{}
	for _, g := range order {
		best := 0
		for f := 1; f < k; f++ {
			if g.failed > 0 && foldFailed[f] != foldFailed[best] {
				if foldFailed[f] < foldFailed[best] {
					best = f
				}
				continue
			}
			if foldSize[f] < foldSize[best] {
				best = f
			}
		}
		foldOf[g.id] = best
		foldFailed[best] += g.failed
		foldSize[best] += g.size
	}
	out := make([]int, len(groups))
	for i, g := range groups {
		out[i] = foldOf[g]
	}
	return out, k
}

// groupBootstrap is the intervalLevel interval in which the AUROC of the model on
// scenarios like these that it has not seen should fall: from the spread of the AUROC
// of the out-of-fold scores against failed when whole groups are resampled with
// replacement (bootstraps times, from a fixed seed), widened for the new scenarios'
// own sampling. ok is false when no resample held both outcomes.
func groupBootstrap(scores []float64, failed []bool, groups []int) (lo, hi float64, ok bool) {
	members := map[int][]int{}
	var ids []int
	for i, g := range groups {
		if _, seen := members[g]; !seen {
			ids = append(ids, g)
		}
		members[g] = append(members[g], i)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var aurocs []float64
	var s []float64
	var f []bool
	for range bootstraps {
		s, f = s[:0], f[:0]
		pos, neg := 0, 0
		for range ids {
			for _, i := range members[ids[rng.IntN(len(ids))]] {
				s, f = append(s, scores[i]), append(f, failed[i])
				if failed[i] {
					pos++
				} else {
					neg++
				}
			}
		}
		if pos > 0 && neg > 0 {
			aurocs = append(aurocs, stats.AUROC(s, f))
		}
	}
	if len(aurocs) == 0 {
		return 0, 0, false
	}
	slices.Sort(aurocs)
	tail := (1 - intervalLevel) / 2
	lo, hi = stat.Quantile(tail, stat.Empirical, aurocs, nil), stat.Quantile(1-tail, stat.Empirical, aurocs, nil)
	// The spread of the estimate is not the spread a new set of scenarios shows: that
	// set's own sampling adds as much again, so the interval for it is √2 as wide
	// around the estimate (a prediction interval, not a confidence interval).
	mid := stats.AUROC(scores, failed)
	lo, hi = mid-math.Sqrt2*(mid-lo), mid+math.Sqrt2*(hi-mid)
	return max(0, lo), min(1, hi), true
}
