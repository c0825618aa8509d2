package detector

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Model is a trained detector: what it reads of a conversation, the weights it gives
// each of those features, and how well it did on scenarios it had not seen.
// Its JSON is the stored form; the same training data gives the same bytes.
type Model struct {
	Format int `json:"format"`
	vocabulary
	Weights      []float64              `json:"weights"` // one per term
	DenseWeights [denseFeatures]float64 `json:"dense_weights"`
	DenseMean    [denseFeatures]float64 `json:"dense_mean"`
	DenseStd     [denseFeatures]float64 `json:"dense_std"`
	Intercept    float64                `json:"intercept"`
	// Features are the kinds of feature it reads (the names of its featureSet): the
	// variant cross-validation chose.
	Features []string `json:"features"`
	Estimate Estimate `json:"estimate"`
	reads    featureSet
}

// modelFormat is the version of Model's stored form. Format 1 had no features: it read
// everything but, unless reads_findings said so, the findings.
const modelFormat = 2

// Estimate is how well a detector separates failed from successful conversations it
// was not trained on, by cross-validation over folds of whole near-duplicate groups.
type Estimate struct {
	TrainedOn int `json:"trained_on"`
	Failed    int `json:"failed"`
	Succeeded int `json:"succeeded"`
	Groups    int `json:"groups"` // near-duplicate groups the folds kept whole
	Folds     int `json:"folds"`
	// AUROC is the chosen variant's cross-validated AUROC less SelectionOptimism.
	AUROC float64 `json:"cv_auroc"`
	// Low and High bound the interval (intervalLevel) in which its AUROC on
	// conversations it has not seen should fall: from new scenarios (the folds of whole
	// groups, Low, less SelectionOptimism) to retries of known ones (AUROCSeen's folds,
	// which may raise High).
	Low  float64 `json:"cv_low"`
	High float64 `json:"cv_high"`
	// Variants are the cross-validated AUROCs of the feature sets Train compared; the
	// model is the best.
	Variants []Variant `json:"variants"`
	// SelectionOptimism is how much choosing the best variant raised its figure
	// (selectionOptimism).
	SelectionOptimism float64 `json:"cv_selection_optimism"`
	// AUROCSeen is the cross-validated AUROC over folds that ignore the groups: on
	// retries of scenarios it has seen.
	AUROCSeen float64 `json:"cv_auroc_seen"`
	// Baselines are what counting alone scores on the same conversations.
	Baselines []Baseline `json:"baselines"`
}

// Variant is one feature set Train cross-validated and its AUROC.
type Variant struct {
	Features []string `json:"features"`
	AUROC    float64  `json:"cv_auroc"`
}

// Decode reads a model from its stored form (its JSON), of this format or the one
// before.
func Decode(data []byte) (*Model, error) {
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("detector: decode model: %w", err)
	}
	if (m.Format != modelFormat && m.Format != 1) || len(m.Weights) != len(m.Terms) || len(m.IDF) != len(m.Terms) {
		return nil, fmt.Errorf("detector: decode model: format %d with %d terms, %d idf, %d weights", m.Format, len(m.Terms), len(m.IDF), len(m.Weights))
	}
	if m.Format == 1 {
		var old struct {
			ReadsFindings bool `json:"reads_findings"`
		}
		if err := json.Unmarshal(data, &old); err != nil {
			return nil, fmt.Errorf("detector: decode model: %w", err)
		}
		m.Features = featureSet{Pairs: true, Tools: true, Counts: true, Findings: old.ReadsFindings}.names()
	}
	reads, err := parseFeatureSet(m.Features)
	if err != nil {
		return nil, fmt.Errorf("detector: decode model: %w", err)
	}
	m.reads = reads
	m.buildIndex()
	return &m, nil
}

// keep makes the fitted weights w (the design's columns, intercept last) the model's,
// its margin shifted by shift: the terms it does not read leave its vocabulary, and
// the dense features it does not read weigh nothing.
func (m *Model) keep(reads featureSet, w []float64, shift float64) {
	m.reads, m.Features = reads, reads.names()
	v := vocabulary{Terms: []string{}, IDF: []float64{}}
	m.Weights = []float64{}
	for i, t := range m.Terms {
		if reads.readsTerm(t, m.blocks[i]) {
			v.Terms, v.IDF = append(v.Terms, t), append(v.IDF, m.IDF[i])
			m.Weights = append(m.Weights, w[i])
		}
	}
	terms := len(m.Terms)
	for k := range denseFeatures {
		m.DenseWeights[k] = 0
		if reads.readsDense(k) {
			m.DenseWeights[k] = w[terms+k]
		}
	}
	m.Intercept = w[len(w)-1] + shift
	v.buildIndex()
	m.vocabulary = v
}

// Score is the detector's estimate that the conversation failed, 0 to 1. It is safe
// for concurrent use.
func (m *Model) Score(d Doc) float64 {
	return sigmoid(m.margin(m.tfidf(d.Terms), d))
}

// margin is the linear score of a document's vector and dense features.
func (m *Model) margin(v vector, d Doc) float64 {
	z := m.Intercept
	for k, col := range v.cols {
		if m.blocks[col] == findingsBlock && !m.reads.Findings { // a format 1 model's
			continue
		}
		z += m.Weights[col] * float64(v.vals[k])
	}
	for k, x := range m.standardise(d) {
		z += m.DenseWeights[k] * x
	}
	return z
}

// standardise turns a document's dense features into what the model reads, as the
// training set scaled them.
func (m *Model) standardise(d Doc) [denseFeatures]float64 { return m.scale(d.dense()) }

func (m *Model) scale(dense [denseFeatures]float64) [denseFeatures]float64 {
	for k := range dense {
		dense[k] = (dense[k] - m.DenseMean[k]) / m.DenseStd[k]
	}
	return dense
}

// Feature is one input of a model with its weight: positive weights speak for failure.
type Feature struct {
	Feature string  `json:"feature"`
	Weight  float64 `json:"weight"`
}

// TopFeatures are the n features with the largest weights either way, the largest
// first (ties by name), weights rounded to three decimals.
func (m *Model) TopFeatures(n int) []Feature {
	var all []Feature
	for i, t := range m.Terms {
		if m.Weights[i] != 0 && (m.reads.Findings || !strings.HasPrefix(t, category)) {
			all = append(all, Feature{t, m.Weights[i]})
		}
	}
	for k, w := range m.DenseWeights {
		if w != 0 {
			all = append(all, Feature{denseName(k), w})
		}
	}
	slices.SortFunc(all, func(a, b Feature) int {
		return cmp.Or(cmp.Compare(math.Abs(b.Weight), math.Abs(a.Weight)), strings.Compare(a.Feature, b.Feature))
	})
	all = all[:min(n, len(all))]
	for i := range all {
		all[i].Weight = math.Round(all[i].Weight*1000) / 1000
	}
	return all
}
