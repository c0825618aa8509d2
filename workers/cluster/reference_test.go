package cluster

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// The indexes that find candidate clusters by their rarest bigrams and terms find the
// same clusters as comparing every title with every cluster did: Build against that
// reference, on titles and descriptions that overlap in many ways.
func TestBuildMatchesTheExhaustiveSearch(t *testing.T) {
	t.Parallel()
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		vocab := strings.Fields("agent tool error the user booking order refund confirm request human transfer " +
			"policy denied repeat again wrong data card account payment 用户 要求 转人工 投诉 退款 订单 错误")
		words := func(n int) string {
			var b []string
			for range n {
				b = append(b, vocab[rng.IntN(len(vocab))])
			}
			if rng.IntN(3) == 0 {
				b = append(b, fmt.Sprint(rng.IntN(50)))
			}
			return strings.Join(b, " ")
		}
		titles := make([]string, 5+rng.IntN(200))
		for i := range titles {
			titles[i] = words(1 + rng.IntN(6))
		}
		var findings []FindingRef
		for seq := 1; seq <= 400; seq++ {
			for idx := range rng.IntN(3) {
				findings = append(findings, FindingRef{
					Seq: seq, Idx: idx, Type: []analyzer.FindingType{analyzer.TypeAction, analyzer.TypeRisk}[rng.IntN(2)],
					Category: []string{"tool_error", "refusal"}[rng.IntN(2)], Title: titles[rng.IntN(len(titles))],
					Severity: 1 + rng.IntN(5), Confidence: float64(float32(rng.Float64())), Expected: rng.IntN(8) == 0,
					Description: words(rng.IntN(12)),
				})
			}
		}
		require.Equal(t, buildReference(findings, 400), Build(findings, 400), "seed %d", seed)
	}
}

// buildReference is Build as it was before the indexes: every title compared with the
// first title of every cluster of its group that shares a bigram, and every cluster
// with every earlier one that shares a term.
func buildReference(findings []FindingRef, analysed int) []Cluster {
	sorted := slices.Clone(findings)
	slices.SortStableFunc(sorted, func(a, b FindingRef) int {
		if a.Seq != b.Seq {
			return a.Seq - b.Seq
		}
		return a.Idx - b.Idx
	})
	groups := map[groupKey]*refTitleGroup{}
	var all []*building
	for _, f := range sorted {
		key := groupKey{f.Type, f.Category, f.Expected}
		g := groups[key]
		if g == nil {
			g = &refTitleGroup{byTitle: map[string]*building{}, index: map[uint64][]int32{}}
			groups[key] = g
		}
		b := g.place(f.Title, func() *building {
			nb := &building{key: key, titles: map[string]int{}}
			all = append(all, nb)
			return nb
		})
		b.add(f)
	}
	var clusters []Cluster
	for _, b := range mergeReference(all) {
		clusters = append(clusters, b.finish(analysed))
	}
	slices.SortStableFunc(clusters, func(a, b Cluster) int {
		return cmp.Or(
			cmp.Compare(b.PriorityScore, a.PriorityScore),
			cmp.Compare(b.ConversationCount, a.ConversationCount),
			cmp.Compare(typeRank(a.Type), typeRank(b.Type)),
			cmp.Compare(a.Category, b.Category),
			cmp.Compare(a.Title, b.Title),
		)
	})
	for i := range clusters {
		clusters[i].Idx = i
	}
	return clusters
}

type refTitleGroup struct {
	byTitle  map[string]*building
	clusters []*building
	seeds    []textmatch.ShingleSet
	index    map[uint64][]int32
}

func (g *refTitleGroup) place(title string, create func() *building) *building {
	folded := textmatch.FoldString(title)
	if b, ok := g.byTitle[folded]; ok {
		return b
	}
	sh := textmatch.Shingles(title)
	best, bestSim := -1, 0.0
	if len(sh) > 0 {
		shared := map[int32]int{}
		for _, s := range sh {
			for _, pos := range g.index[s] {
				shared[pos]++
			}
		}
		for pos, inter := range shared {
			sim := float64(inter) / float64(len(sh)+len(g.seeds[pos])-inter)
			if sim >= TitleThreshold && (sim > bestSim || (sim == bestSim && int(pos) < best)) {
				best, bestSim = int(pos), sim
			}
		}
	}
	var b *building
	if best >= 0 {
		b = g.clusters[best]
	} else {
		b = create()
		pos := int32(len(g.clusters))
		g.clusters = append(g.clusters, b)
		g.seeds = append(g.seeds, sh)
		for _, s := range sh {
			g.index[s] = append(g.index[s], pos)
		}
	}
	g.byTitle[folded] = b
	return b
}

func mergeReference(all []*building) []*building {
	type profile struct {
		title, desc map[string]bool
	}
	profiles := make([]profile, len(all))
	for i, b := range all {
		profiles[i] = profile{title: signature(b.titleOrder[0]), desc: signature(b.desc)}
	}
	root := make([]int, len(all))
	index := map[groupKey]map[string][]int{} // term → the clusters (roots) whose profile has it
	for i, b := range all {
		root[i] = i
		terms := index[b.key]
		if terms == nil {
			terms = map[string][]int{}
			index[b.key] = terms
		}
		candidates := map[int]bool{}
		for t := range profiles[i].title {
			for _, j := range terms[t] {
				candidates[j] = true
			}
		}
		for t := range profiles[i].desc {
			for _, j := range terms[t] {
				candidates[j] = true
			}
		}
		order := make([]int, 0, len(candidates))
		for j := range candidates {
			order = append(order, j)
		}
		slices.Sort(order)
		for _, j := range order {
			if dice(profiles[i].title, profiles[j].title) >= MergeThreshold ||
				(len(profiles[i].desc) >= minDescriptionTerms && len(profiles[j].desc) >= minDescriptionTerms &&
					dice(profiles[i].desc, profiles[j].desc) >= MergeThreshold) {
				root[i] = j
				break
			}
		}
		if root[i] != i {
			all[root[i]].absorb(b)
			continue
		}
		for t := range profiles[i].title {
			terms[t] = append(terms[t], i)
		}
		for t := range profiles[i].desc {
			terms[t] = append(terms[t], i)
		}
	}
	out := make([]*building, 0, len(all))
	for i, b := range all {
		if root[i] == i {
			out = append(out, b)
		}
	}
	return out
}
