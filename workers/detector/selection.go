package detector

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// selectionOptimism is how much choosing the variant with the best cross-validated
// AUROC flatters that figure, from the variants' out-of-fold scores (outs) alone, with
// no more fits: over bootstraps of whole groups, the variant the resampled rows pick
// is scored on the groups they left out, beside chosen (the one all the rows pick)
// there. The mean shortfall of the resample's pick is the optimism (the bootstrap bias
// correction of cross-validation of Tsamardinos, Greasidou and Borboudakis, 2018, read
// as a difference from chosen so that a single variant has none). Like that
// correction it errs on the low side; it is never below zero.
func selectionOptimism(outs [][]float64, failed []bool, groups []int, chosen int) float64 {
	if len(outs) < 2 {
		return 0
	}
	orders := make([][]int, len(outs))
	for v, s := range outs {
		orders[v] = ascending(s)
	}
	ids, groupOf := groupIndex(groups)
	rng := rand.New(rand.NewPCG(5, 6))
	draws := make([]int, len(ids))
	inBag, outOfBag := make([]int, len(failed)), make([]int, len(failed))
	var shortfall float64
	n := 0
	for range bootstraps {
		clear(draws)
		for range ids {
			draws[rng.IntN(len(ids))]++
		}
		for i, g := range groupOf {
			inBag[i], outOfBag[i] = draws[g], 0
			if draws[g] == 0 {
				outOfBag[i] = 1
			}
		}
		pick, pickAUROC := 0, -1.0
		for v := range outs {
			if a, ok := weightedAUROC(outs[v], orders[v], failed, inBag); ok && a > pickAUROC {
				pick, pickAUROC = v, a
			}
		}
		picked, ok1 := weightedAUROC(outs[pick], orders[pick], failed, outOfBag)
		best, ok2 := weightedAUROC(outs[chosen], orders[chosen], failed, outOfBag)
		if pickAUROC < 0 || !ok1 || !ok2 {
			continue
		}
		shortfall += best - picked
		n++
	}
	if n == 0 {
		return 0
	}
	return max(0, shortfall/float64(n))
}

// groupIndex numbers the distinct groups 0, 1, … in order of first appearance: ids
// are the groups, groupOf each row's number.
func groupIndex(groups []int) (ids []int, groupOf []int) {
	num := map[int]int{}
	groupOf = make([]int, len(groups))
	for i, g := range groups {
		n, ok := num[g]
		if !ok {
			n = len(ids)
			num[g] = n
			ids = append(ids, g)
		}
		groupOf[i] = n
	}
	return ids, groupOf
}

// ascending is the rows' indices in increasing order of score (ties by index).
func ascending(scores []float64) []int {
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[a], scores[b]) })
	return order
}

// weightedAUROC is the AUROC of scores against failed with row i counted weight[i]
// times, ties counting half, from the rows' order by score: one pass, however often
// it is asked. ok is false when the weighted rows lack an outcome.
func weightedAUROC(scores []float64, order []int, failed []bool, weight []int) (float64, bool) {
	var below, pos, neg, wins float64 // below: weighted successes scored lower so far
	for a := 0; a < len(order); {
		var tiePos, tieNeg float64
		b := a
		for ; b < len(order) && scores[order[b]] == scores[order[a]]; b++ {
			if w := float64(weight[order[b]]); failed[order[b]] {
				tiePos += w
			} else {
				tieNeg += w
			}
		}
		wins += tiePos*below + tiePos*tieNeg/2
		below += tieNeg
		pos, neg = pos+tiePos, neg+tieNeg
		a = b
	}
	if pos == 0 || neg == 0 {
		return 0, false
	}
	return wins / (pos * neg), true
}
