// Package stats is the arithmetic behind the claims a report makes about outcome
// labels: how well a score orders failed conversations above successful ones (AUROC),
// whether a cluster or a feature is over-represented among failures (Fisher's exact
// test) and how many of many such tests to believe (Benjamini–Hochberg). Everything is
// exact or closed-form, so the same input always gives the same figures.
package stats

import "sort"

// AUROC is the probability that a randomly chosen positive scores higher than a
// randomly chosen negative, ties counting half: 1 orders every positive first, 0.5 is
// chance. It is NaN when either class is empty.
func AUROC(scores []float64, positive []bool) float64 {
	type item struct {
		s float64
		p bool
	}
	items := make([]item, len(scores))
	for i := range scores {
		items[i] = item{scores[i], positive[i]}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].s < items[j].s })
	var pos, neg, rankSum float64
	for i := 0; i < len(items); {
		j := i
		for j < len(items) && items[j].s == items[i].s {
			j++
		}
		avgRank := float64(i+j+1) / 2 // 1-based average rank of the tie group
		for k := i; k < j; k++ {
			if items[k].p {
				rankSum += avgRank
				pos++
			} else {
				neg++
			}
		}
		i = j
	}
	return (rankSum - pos*(pos+1)/2) / (pos * neg)
}
