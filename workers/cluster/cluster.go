// Package cluster turns a task's findings into issue clusters and decides which get an
// Action (steps 5 and 6 of docs/architecture.md#pipeline-stages): deterministic
// grouping by type, category and title similarity, the documented priorityScore,
// candidate selection in two pools and gap-free ranks. Everything here is a pure
// function of its input.
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
	// Named marks a title that is a rule's own name (an offline rule's, written from
	// the catalog): two such names are two rules, never one issue however alike their
	// words, so they never join or merge.
	Named bool
	// Description is read from the first finding of each title only: merging compares
	// what the first description of a cluster says.
	Description string
}

// Cluster is one issue cluster: findings of one type and category with similar titles.
type Cluster struct {
	Idx      int // position in the task's clusters, most urgent first
	Type     analyzer.FindingType
	Category string
	Title    string // the most frequent title among its findings
	// ConversationSeqs are the conversations it covers, ascending; a cluster read back
	// from storage (FromRows) has only their count.
	ConversationSeqs  []int
	ConversationCount int // how many conversations it covers
	FindingCount      int
	Prevalence        float64 // conversations / analysed conversations
	Severity          float64 // mean severity of its findings
	Confidence        float64 // mean confidence of its findings
	PriorityScore     float64
	Parts             PriorityParts
	// Titles are the exact titles of its findings, in the order first seen: with Type,
	// Category and Expected they say which findings the cluster holds.
	Titles []string
	// Expected clusters hold behaviour the agent's policy calls for, or that its owner
	// marked as expected (ExpectedBy says which, ExpectedReason why): listed apart, never
	// an Action.
	Expected       bool
	ExpectedBy     string
	ExpectedReason string
	// PolicyOverruled: the policy seemed to call for its findings, but the owner says it
	// is not expected (ExpectedReason why); it is an issue like any other.
	PolicyOverruled bool
	// Outcomes is the cluster's split by the uploaded outcome labels; nil without labels.
	Outcomes *Outcomes
	// Estimated is how many failures the cluster's conversations are estimated to
	// hold, when an agent's detector scored the run (EstimateFailures); nil otherwise.
	Estimated *Estimated
}

// Priority computes a priorityScore and its parts by PriorityFormula, each term
// rounded to two decimals and the score their sum. The measures themselves keep four,
// as the rank's Support does, so the page rounds the same figure the same way in both.
func Priority(prevalence, severity, confidence float64) (float64, PriorityParts) {
	p := PriorityParts{
		Prevalence: round4(prevalence), Severity: round4(severity), Confidence: round4(confidence),
		PrevalenceTerm: round2(40 * math.Sqrt(min(max(prevalence, 0), 1))),
		SeverityTerm:   round2(40 * (min(max(severity, 1), 5) - 1) / 4),
		ConfidenceTerm: round2(20 * min(max(confidence, 0), 1)),
		Formula:        PriorityFormula,
	}
	return round2(min(p.PrevalenceTerm+p.SeverityTerm+p.ConfidenceTerm, 100)), p
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// Build groups findings deterministically (step 5 of
// docs/architecture.md#pipeline-stages): by type, category and whether they are
// expected behaviour, then by title. Findings are taken in (Seq, Idx) order; a finding
// whose folded title was seen before joins that title's cluster; otherwise it joins the
// cluster of its group whose first title is most similar to its own, when that
// similarity reaches TitleThreshold (the earlier cluster on a tie), or starts a new
// one. Comparing with a cluster's first title, not a moving centre, keeps the result
// independent of how large clusters grow. Clusters of one group that say the same in
// other words are then merged (mergeNearDuplicates). analysed is the number of
// diagnosed conversations, the denominator of prevalence. Clusters come back most
// urgent first (priorityScore, then conversations, then type, category and title), Idx
// numbered in that order.
func Build(findings []FindingRef, analysed int) []Cluster {
	sorted := slices.Clone(findings)
	slices.SortStableFunc(sorted, func(a, b FindingRef) int {
		return cmp.Or(cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.Idx, b.Idx))
	})
	b := NewBuilder()
	for _, f := range sorted {
		b.AddTitle(f.Type, f.Category, f.Expected, f.Title, f.Named)
	}
	for _, f := range sorted {
		b.Add(f)
	}
	return b.Clusters(analysed)
}

// Builder is Build for findings read from the database a page at a time, in two
// passes: AddTitle for each title in the order of its first finding, then Add for
// every finding in (Seq, Idx) order. Knowing every title first lets it place them by
// their rarest bigrams (see titleGroup), and it keeps each cluster's titles,
// conversations and sums, never the findings themselves.
type Builder struct {
	groups map[groupKey]*titleGroup
	order  []*titleGroup // in order of their first title
	placed bool
	all    []*building
}

// NewBuilder starts an empty Builder.
func NewBuilder() *Builder { return &Builder{groups: map[groupKey]*titleGroup{}} }

// AddTitle records a title of a group, in the order of the titles' first findings;
// adding one again changes nothing. Every title must be added before the first Add.
// named says the title is a rule's own name (FindingRef.Named).
func (cb *Builder) AddTitle(typ analyzer.FindingType, category string, expected bool, title string, named bool) {
	key := groupKey{typ, category, expected}
	g := cb.groups[key]
	if g == nil {
		g = newTitleGroup(key)
		cb.groups[key] = g
		cb.order = append(cb.order, g)
	}
	g.add(title, named)
}

// Add adds the next finding to its title's cluster. Findings must come in (Seq, Idx)
// order, as Build sorts them; a finding whose title was not added starts a cluster of
// its own.
func (cb *Builder) Add(f FindingRef) {
	cb.place()
	key := groupKey{f.Type, f.Category, f.Expected}
	g := cb.groups[key]
	b := g.building(f.Title)
	if b == nil {
		cb.AddTitle(f.Type, f.Category, f.Expected, f.Title, f.Named)
		g = cb.groups[key]
		b = g.placeNew(f.Title, cb.create)
	}
	b.add(f)
}

// place places every title added, group by group, once.
func (cb *Builder) place() {
	if cb.placed {
		return
	}
	cb.placed = true
	for _, g := range cb.order {
		g.placeAll(cb.create)
	}
}

// create starts a cluster of group key.
func (cb *Builder) create(key groupKey) *building {
	b := &building{key: key, titles: map[string]int{}}
	cb.all = append(cb.all, b)
	return b
}

// Clusters merges near-duplicates and returns the clusters of every finding added, as
// Build does.
func (cb *Builder) Clusters(analysed int) []Cluster {
	cb.place()
	clusters := make([]Cluster, 0, len(cb.all))
	for _, b := range mergeNearDuplicates(cb.all) {
		clusters = append(clusters, b.finish(analysed))
	}
	// Stable: clusters equal on every key keep their creation order.
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

// typeRank orders RISK before ACTION.
func typeRank(t analyzer.FindingType) int {
	if t == analyzer.TypeRisk {
		return 0
	}
	return 1
}

// titleGroup places the titles of one group into clusters, in the order of their first
// findings: a title joins the cluster whose first title is most similar to it
// (textmatch Jaccard of bigrams, at least TitleThreshold, the earlier cluster on a tie)
// or starts one. Candidates come from an index of each cluster's first title by its
// rarest bigrams (prefix filtering): two bigram sets with a Jaccard of t or more share
// one of the first |x| − ⌈t·|x|⌉ + 1 bigrams of each, in any fixed order; in order of
// how few of the group's titles have them, those are the bigrams few titles share, so
// the candidates are few, and none that could reach the threshold is missed. Bigrams
// that every title has ("ag", "nt", "th") would otherwise make each new title compare
// with every cluster.
type titleGroup struct {
	key      groupKey
	titles   []string               // folded titles, in first-seen order
	folded   map[string]*titlePlace // folded title → its place
	byExact  map[string]*titlePlace // title as found → its place
	clusters []*building            // by position
	seeds    []textmatch.ShingleSet // each cluster's first title's bigrams, by value
	seedNeg  []bool                 // whether each cluster's first title is negated
	seedName []bool                 // whether each cluster's first title is a rule's name
	index    map[uint64][]int32     // a rare bigram of a seed → positions
	df       map[uint64]int         // bigram → titles of the group that have it
}

// titlePlace is one folded title: its bigrams, whether it is a rule's name and, once
// placed, its cluster.
type titlePlace struct {
	sh    textmatch.ShingleSet
	named bool
	b     *building
}

func newTitleGroup(key groupKey) *titleGroup {
	return &titleGroup{key: key, folded: map[string]*titlePlace{}, byExact: map[string]*titlePlace{}}
}

// add records a title, named when it is a rule's name.
func (g *titleGroup) add(title string, named bool) {
	if _, ok := g.byExact[title]; ok {
		return
	}
	folded := textmatch.FoldString(title)
	p, ok := g.folded[folded]
	if !ok {
		p = &titlePlace{sh: textmatch.Shingles(title), named: named}
		g.folded[folded] = p
		g.titles = append(g.titles, folded)
	}
	g.byExact[title] = p
}

// building is the cluster of a title added and placed, or nil.
func (g *titleGroup) building(title string) *building {
	if g == nil {
		return nil
	}
	if p := g.byExact[title]; p != nil {
		return p.b
	}
	return nil
}

// placeAll places every title recorded, in order.
func (g *titleGroup) placeAll(create func(groupKey) *building) {
	g.df = map[uint64]int{}
	for _, t := range g.titles {
		for _, s := range g.folded[t].sh {
			g.df[s]++
		}
	}
	g.index = map[uint64][]int32{}
	for _, t := range g.titles {
		p := g.folded[t]
		p.b = g.place(p, negated(t), create)
	}
}

// placeNew places a title added after the others were placed (Add of a title never
// added), with the same rule.
func (g *titleGroup) placeNew(title string, create func(groupKey) *building) *building {
	p := g.byExact[title]
	if p.b == nil {
		if g.index == nil {
			g.df, g.index = map[uint64]int{}, map[uint64][]int32{}
		}
		p.b = g.place(p, negated(title), create)
	}
	return p.b
}

// place returns the cluster title p belongs in, making one when none fits. A title
// joins only a cluster whose first title is negated as it is (neg): "is transferred"
// and "is not transferred" share most bigrams and say the opposite. A rule's name
// never joins another rule's.
func (g *titleGroup) place(p *titlePlace, neg bool, create func(groupKey) *building) *building {
	sh := p.sh
	rare := g.byRarity(sh)
	prefix := rare[:prefixLen(len(rare), TitleThreshold)]
	best, bestSim := -1, 0.0
	seen := map[int32]bool{}
	for _, s := range prefix {
		for _, pos := range g.index[s] {
			if seen[pos] {
				continue
			}
			seen[pos] = true
			if g.seedNeg[pos] != neg || (p.named && g.seedName[pos]) {
				continue
			}
			sim := sh.Jaccard(g.seeds[pos])
			if len(sh) > 0 && sim >= TitleThreshold && (sim > bestSim || (sim == bestSim && int(pos) < best)) {
				best, bestSim = int(pos), sim
			}
		}
	}
	if best >= 0 {
		return g.clusters[best]
	}
	b := create(g.key)
	b.named = p.named
	pos := int32(len(g.clusters))
	g.clusters = append(g.clusters, b)
	g.seeds = append(g.seeds, sh)
	g.seedNeg = append(g.seedNeg, neg)
	g.seedName = append(g.seedName, p.named)
	for _, s := range prefix {
		g.index[s] = append(g.index[s], pos)
	}
	return b
}

// byRarity is sh ordered by how few titles of the group have each bigram, then by
// value: a fixed order for the group, which prefix filtering needs.
func (g *titleGroup) byRarity(sh textmatch.ShingleSet) []uint64 {
	out := slices.Clone(sh)
	slices.SortFunc(out, func(a, b uint64) int { return cmp.Or(cmp.Compare(g.df[a], g.df[b]), cmp.Compare(a, b)) })
	return out
}

// prefixLen is how many of a set's first elements, in a fixed order, any set similar
// to it by at least minOverlap shares at least one of: n − ⌈minOverlap·n⌉ + 1, for an
// overlap of minOverlap·n elements or more. It rounds the overlap down a hair, so
// floating point never makes the prefix too short.
func prefixLen(n int, minOverlap float64) int {
	if n == 0 {
		return 0
	}
	need := int(math.Ceil(minOverlap*float64(n) - 1e-9))
	return min(n, max(1, n-need+1))
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
	named      bool           // its first title is a rule's name (FindingRef.Named)
	findings   int
	seqs       []int
	severity   float64
	confidence float64
}

func (b *building) add(f FindingRef) {
	if b.titles[f.Title] == 0 {
		b.titleOrder = append(b.titleOrder, f.Title)
		if b.desc == "" {
			b.desc = f.Description
		}
	}
	b.titles[f.Title]++
	b.findings++
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
	n := float64(b.findings)
	prevalence := 0.0
	if analysed > 0 {
		prevalence = min(float64(len(b.seqs))/float64(analysed), 1)
	}
	c := Cluster{
		Type: b.key.typ, Category: b.key.category, Title: title, ConversationSeqs: b.seqs, ConversationCount: len(b.seqs),
		FindingCount: b.findings, Prevalence: prevalence, Expected: b.key.expected,
		Severity: b.severity / n, Confidence: b.confidence / n, Titles: b.titleOrder,
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
