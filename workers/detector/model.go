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
	Weights       []float64              `json:"weights"` // one per term
	DenseWeights  [denseFeatures]float64 `json:"dense_weights"`
	DenseMean     [denseFeatures]float64 `json:"dense_mean"`
	DenseStd      [denseFeatures]float64 `json:"dense_std"`
	Intercept     float64                `json:"intercept"`
	ReadsFindings bool                   `json:"reads_findings"` // findings helped in cross-validation
	Estimate      Estimate               `json:"estimate"`
}

// modelFormat is the version of Model's stored form.
const modelFormat = 1

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
	// WithoutFindings and WithFindings are the cross-validated AUROCs of the two
	// variants Train compared; the model is the better one.
	WithoutFindings float64 `json:"cv_auroc_without_findings"`
	WithFindings    float64 `json:"cv_auroc_with_findings"`
	// SelectionOptimism is how much choosing the better variant raised its figure
	// (selectionOptimism).
	SelectionOptimism float64 `json:"cv_selection_optimism"`
	// AUROCSeen is the cross-validated AUROC over folds that ignore the groups: on
	// retries of scenarios it has seen.
	AUROCSeen float64 `json:"cv_auroc_seen"`
	// Baselines are what counting alone scores on the same conversations.
	Baselines []Baseline `json:"baselines"`
}

// Decode reads a model from its stored form (its JSON).
func Decode(data []byte) (*Model, error) {
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("detector: decode model: %w", err)
	}
	if m.Format != modelFormat || len(m.Weights) != len(m.Terms) || len(m.IDF) != len(m.Terms) {
		return nil, fmt.Errorf("detector: decode model: format %d with %d terms, %d idf, %d weights", m.Format, len(m.Terms), len(m.IDF), len(m.Weights))
	}
	m.buildIndex()
	return &m, nil
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
		if m.blocks[col] == findingsBlock && !m.ReadsFindings {
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
		if m.Weights[i] != 0 && (m.ReadsFindings || !strings.HasPrefix(t, category)) {
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
