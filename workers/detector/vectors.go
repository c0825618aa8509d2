package detector

import (
	"math"
	"slices"
	"strings"
)

// vector is a sparse feature vector: columns in increasing order and their values.
type vector struct {
	cols []int32
	vals []float32
}

// blockOf is the block of columns term belongs to. The columns of a block are
// normalised together, so the user's few words weigh as much as the agent's many: each
// block of a document's TF-IDF vector has length one.
func blockOf(term string) int {
	switch {
	case strings.HasPrefix(term, userWords):
		return 0
	case strings.HasPrefix(term, agentWords):
		return 1
	case strings.HasPrefix(term, category):
		return findingsBlock
	}
	return 2 // tools and tool errors
}

// findingsBlock holds the categories of the diagnosis' findings, which a model reads
// only when cross-validation says they help (Train).
const (
	findingsBlock = 3
	numBlocks     = 4
)

// denseFeatures are what every model reads besides the terms, after the terms'
// columns, standardised by the training set's mean and deviation: the sizes, as
// log(1+n), and the analyzer's own failure score, which belongs with the findings
// (analyzerScore is its index) and is read only when they are.
const (
	denseFeatures = 5
	analyzerScore = 4
)

func (d Doc) dense() [denseFeatures]float64 {
	c := d.Counts
	return [denseFeatures]float64{
		math.Log1p(float64(c.Messages)), math.Log1p(float64(c.UserTurns)),
		math.Log1p(float64(c.ToolCalls)), math.Log1p(float64(c.Characters)), d.AnalyzerScore,
	}
}

// denseName names dense feature i in a model's top features.
func denseName(i int) string {
	return [denseFeatures]string{"count:messages", "count:user_turns", "count:tool_calls", "count:characters", "finding:failure_score"}[i]
}

// tfidf turns a document's terms into its vector over v: sublinear term frequency
// 1 + ln(tf) times idf, each block scaled to length one.
func (v *vocabulary) tfidf(terms map[string]int32) vector {
	var vec vector
	var counts []int32
	for t, n := range terms {
		if col, ok := v.index[t]; ok {
			vec.cols, counts = append(vec.cols, int32(col)), append(counts, n)
		}
	}
	return v.weigh(vec.cols, counts)
}

// tfidfCompact is tfidf of a compact document, its lexicon ids mapped to columns by
// col.
func (v *vocabulary) tfidfCompact(terms []termCount, col []int32) vector {
	var cols, counts []int32
	for _, t := range terms {
		if c := col[t.id]; c >= 0 {
			cols, counts = append(cols, c), append(counts, t.n)
		}
	}
	return v.weigh(cols, counts)
}

// weigh is the TF-IDF vector of the columns with their counts.
func (v *vocabulary) weigh(cols, counts []int32) vector {
	vec := vector{cols: cols, vals: make([]float32, len(cols))}
	for i, c := range cols {
		vec.vals[i] = float32((1 + math.Log(float64(counts[i]))) * v.IDF[c])
	}
	vec.sort()
	var norms [numBlocks]float64
	for i, c := range vec.cols {
		norms[v.blocks[c]] += float64(vec.vals[i]) * float64(vec.vals[i])
	}
	for i, c := range vec.cols {
		vec.vals[i] = float32(float64(vec.vals[i]) / math.Sqrt(norms[v.blocks[c]]))
	}
	return vec
}

func (v *vector) sort() {
	idx := make([]int, len(v.cols))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return int(v.cols[a] - v.cols[b]) })
	cols, vals := make([]int32, len(idx)), make([]float32, len(idx))
	for i, j := range idx {
		cols[i], vals[i] = v.cols[j], v.vals[j]
	}
	v.cols, v.vals = cols, vals
}
