// Package cluster turns a task's findings into issue clusters and decides which get an
// Action (DESIGN.md §5 steps 5 and 6): deterministic grouping by type, category and
// title similarity, the documented priorityScore, candidate selection in two pools and
// gap-free ranks. Everything here is a pure function of its input.
package cluster

import (
	"cmp"
	"math"
	"slices"

	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// TitleThreshold is the title similarity (textmatch.Similarity: Jaccard of rune bigrams,
// 0..1) at or above which a finding joins a cluster of its type and category. At 0.5
// "Tool call returns an error" and "tool call returned an error" (0.81) go together,
// and so do 用户要求转人工客服 and 用户要求转人工 (0.75), while "User asks for a human"
// and "User repeats the request" (0.15) stay apart.
const TitleThreshold = 0.5

// PriorityFormula is how a cluster's priorityScore (0–100) is computed from its
// prevalence (share of analysed conversations, 0–1), mean severity (1–5) and mean
// confidence (0–1). Prevalence weighs through a square root so that a problem in 4% of
// conversations (8 points) is not drowned by one in 25% (20 points) yet still counts
// less; a severity-5 problem adds 40 points, a severity-1 one none. Each term is stored
// in PriorityParts so the page can show how the score was reached.
const PriorityFormula = "priorityScore = 40·√prevalence + 40·(severity − 1)/4 + 20·confidence"

// FindingRef is what clustering reads of one stored finding.
type FindingRef struct {
	Seq, Idx   int // the conversation and the finding's position in its diagnosis
	Type       analyzer.FindingType
	Category   string
	Title      string
	Severity   int
	Confidence float64
	// Expected marks behaviour the agent's policy calls for; it clusters apart.
	Expected bool
	// Description may be left empty for all but one finding of each title: merging
	// compares what the first description of a cluster says.
	Description string
}

// FindingKey addresses a stored finding.
type FindingKey struct{ Seq, Idx int }

// Cluster is one issue cluster: findings of one type and category with similar titles.
type Cluster struct {
	Idx              int // position in the task's clusters, most urgent first
	Type             analyzer.FindingType
	Category         string
	Title            string // the most frequent title among its findings
	ConversationSeqs []int  // the conversations it covers, ascending
	FindingCount     int
	Prevalence       float64 // conversations / analysed conversations
	Severity         float64 // mean severity of its findings
	Confidence       float64 // mean confidence of its findings
	PriorityScore    float64
	Parts            PriorityParts
	Findings         []FindingKey // its findings, in (Seq, Idx) order
	// Expected clusters hold behaviour the agent's policy calls for, or that its owner
	// marked as expected (ExpectedBy says which, ExpectedReason why): listed apart, never
	// an Action.
	Expected       bool
	ExpectedBy     string
	ExpectedReason string
	// Outcomes is the cluster's split by the uploaded outcome labels; nil without labels.
	Outcomes *Outcomes
}

// Conversations is the number of conversations the cluster covers.
func (c Cluster) Conversations() int { return len(c.ConversationSeqs) }

// Priority computes a priorityScore and its parts by PriorityFormula, each term
// rounded to two decimals and the score their sum.
func Priority(prevalence, severity, confidence float64) (float64, PriorityParts) {
	p := PriorityParts{
		Prevalence: round2(prevalence), Severity: round2(severity), Confidence: round2(confidence),
		PrevalenceTerm: round2(40 * math.Sqrt(min(max(prevalence, 0), 1))),
		SeverityTerm:   round2(40 * (min(max(severity, 1), 5) - 1) / 4),
		ConfidenceTerm: round2(20 * min(max(confidence, 0), 1)),
		Formula:        PriorityFormula,
	}
	return round2(min(p.PrevalenceTerm+p.SeverityTerm+p.ConfidenceTerm, 100)), p
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// Build groups findings deterministically (DESIGN.md §5 step 5): by type, category and
// whether they are expected behaviour, then by title. Findings are taken in (Seq, Idx)
// order; a finding whose folded title was seen before joins that title's cluster;
// otherwise it joins the cluster of its group whose first title is most similar to its
// own, when that similarity reaches TitleThreshold (the earlier cluster on a tie), or
// starts a new one. Comparing with a cluster's first title, not a moving centre, keeps
// the result independent of how large clusters grow. Clusters of one group that say the
// same in other words are then merged (mergeNearDuplicates). analysed is the number of diagnosed
// conversations, the denominator of prevalence. Clusters come back most urgent first
// (priorityScore, then conversations, then type, category and title), Idx numbered in
// that order.
func Build(findings []FindingRef, analysed int) []Cluster {
	sorted := slices.Clone(findings)
	slices.SortStableFunc(sorted, func(a, b FindingRef) int {
		return cmp.Or(cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.Idx, b.Idx))
	})
	groups := map[groupKey]*titleGroup{}
	var all []*building
	for _, f := range sorted {
		key := groupKey{f.Type, f.Category, f.Expected}
		g := groups[key]
		if g == nil {
			g = newTitleGroup()
			groups[key] = g
		}
		b := g.place(f.Title, func() *building {
			nb := &building{key: key, titles: map[string]int{}}
			all = append(all, nb)
			return nb
		})
		b.add(f)
	}
	clusters := make([]Cluster, 0, len(all))
	for _, b := range mergeNearDuplicates(all) {
		clusters = append(clusters, b.finish(analysed))
	}
	// Stable: clusters equal on every key keep their creation order.
	slices.SortStableFunc(clusters, func(a, b Cluster) int {
		return cmp.Or(
			cmp.Compare(b.PriorityScore, a.PriorityScore),
			cmp.Compare(b.Conversations(), a.Conversations()),
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

// typeRank orders RISK before ACTION.
func typeRank(t analyzer.FindingType) int {
	if t == analyzer.TypeRisk {
		return 0
	}
	return 1
}

// titleGroup places titles of one type and category into clusters. An inverted index
// from bigram to the clusters whose first title has it makes finding the most similar
// cluster cost the shared bigrams, not a comparison with every cluster.
type titleGroup struct {
	byTitle  map[string]*building // folded title → its cluster
	clusters []*building
	seeds    []textmatch.ShingleSet // the bigrams of each cluster's first title
	index    map[uint64][]int32     // bigram → positions in clusters
}

func newTitleGroup() *titleGroup {
	return &titleGroup{byTitle: map[string]*building{}, index: map[uint64][]int32{}}
}

// place returns the cluster title belongs in, making one with create when none fits.
func (g *titleGroup) place(title string, create func() *building) *building {
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

// groupKey is what findings must share to cluster together.
type groupKey struct {
	typ      analyzer.FindingType
	category string
	expected bool
}

// building is a cluster while its findings are added.
type building struct {
	key        groupKey
	desc       string         // the first description seen, for merging
	titles     map[string]int // title → findings with it
	titleOrder []string       // titles in first-seen order, for ties
	findings   []FindingKey
	seqs       []int
	severity   float64
	confidence float64
}

func (b *building) add(f FindingRef) {
	if b.titles[f.Title] == 0 {
		b.titleOrder = append(b.titleOrder, f.Title)
	}
	if b.desc == "" {
		b.desc = f.Description
	}
	b.titles[f.Title]++
	b.findings = append(b.findings, FindingKey{f.Seq, f.Idx})
	if n := len(b.seqs); n == 0 || b.seqs[n-1] != f.Seq { // findings arrive in Seq order
		b.seqs = append(b.seqs, f.Seq)
	}
	b.severity += float64(f.Severity)
	b.confidence += f.Confidence
}

func (b *building) finish(analysed int) Cluster {
	title, most := "", 0
	for _, t := range b.titleOrder {
		if b.titles[t] > most {
			title, most = t, b.titles[t]
		}
	}
	n := float64(len(b.findings))
	prevalence := 0.0
	if analysed > 0 {
		prevalence = min(float64(len(b.seqs))/float64(analysed), 1)
	}
	c := Cluster{
		Type: b.key.typ, Category: b.key.category, Title: title, ConversationSeqs: b.seqs,
		FindingCount: len(b.findings), Prevalence: prevalence, Expected: b.key.expected,
		Severity: b.severity / n, Confidence: b.confidence / n, Findings: b.findings,
	}
	if c.Expected {
		c.ExpectedBy = ExpectedByPolicy
	}
	c.PriorityScore, c.Parts = Priority(c.Prevalence, c.Severity, c.Confidence)
	return c
}

// PriorityParts is stored in task_cluster.priority_parts: every input and term of a
// cluster's priorityScore, so the page can show how the score was reached.
type PriorityParts struct {
	Prevalence     float64 `json:"prevalence"` // share of analysed conversations, 0..1
	PrevalenceTerm float64 `json:"prevalence_term"`
	Severity       float64 `json:"severity"` // mean severity, 1..5
	SeverityTerm   float64 `json:"severity_term"`
	Confidence     float64 `json:"confidence"` // mean confidence, 0..1
	ConfidenceTerm float64 `json:"confidence_term"`
	Formula        string  `json:"formula"`
}
