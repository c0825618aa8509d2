package compare

import (
	"cmp"
	"slices"

	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/workers/cluster"
)

// pair is a cluster of the baseline and its match in the current run; either is nil
// when the other run has no such issue.
type pair struct {
	baseline, current *report.Cluster
}

// match pairs the clusters of two runs one to one: within each type and category,
// the pairs whose titles name the same issue, the most alike first (ties by the
// clusters' positions, so the result is deterministic). What is left of either run
// is unpaired. Pairs come in the current run's order, then the baseline's leftovers
// in its own.
func match(baseline, current []report.Cluster) []pair {
	type candidate struct {
		b, c  int
		score float64
	}
	var cands []candidate
	for i := range baseline {
		for j := range current {
			if baseline[i].Type != current[j].Type || baseline[i].Category != current[j].Category {
				continue
			}
			if score, alike := cluster.TitleMatch(baseline[i].Title, current[j].Title); alike {
				cands = append(cands, candidate{i, j, score})
			}
		}
	}
	slices.SortStableFunc(cands, func(x, y candidate) int {
		return cmp.Or(cmp.Compare(y.score, x.score), cmp.Compare(x.c, y.c), cmp.Compare(x.b, y.b))
	})
	matchOf := make([]int, len(current))
	for j := range matchOf {
		matchOf[j] = -1
	}
	taken := make([]bool, len(baseline))
	for _, cd := range cands {
		if matchOf[cd.c] < 0 && !taken[cd.b] {
			matchOf[cd.c], taken[cd.b] = cd.b, true
		}
	}
	pairs := make([]pair, 0, len(baseline)+len(current))
	for j := range current {
		p := pair{current: &current[j]}
		if i := matchOf[j]; i >= 0 {
			p.baseline = &baseline[i]
		}
		pairs = append(pairs, p)
	}
	for i := range baseline {
		if !taken[i] {
			pairs = append(pairs, pair{baseline: &baseline[i]})
		}
	}
	return pairs
}
