package detector

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// l2 is the strength of the ridge penalty on the weights (the intercept is not
// penalised): the inverse of scikit-learn's default C = 1, a setting known to suit
// TF-IDF text classifiers of a few thousand documents.
const l2 = 1.0

// design is a training set as the regression reads it: one sparse row per document
// over width columns (the terms, then the dense features), its outcome and its
// weight.
type design struct {
	rows   []vector
	dense  [][denseFeatures]float64 // standardised
	failed []bool
	weight []float64
	terms  int // columns of the terms; the counts follow
	// blocks are the terms' blocks (blockOf); with readsFindings false the findings'
	// columns are left out of the fit.
	blocks        []uint8
	readsFindings bool
}

// reads reports whether the fit uses column c of the terms.
func (d *design) reads(c int32) bool { return d.readsFindings || d.blocks[c] != findingsBlock }

func (d *design) width() int { return d.terms + denseFeatures }

// subset is the design restricted to the rows at idx, reweighted for its classes.
func (d *design) subset(idx []int) *design {
	s := &design{terms: d.terms, blocks: d.blocks, readsFindings: d.readsFindings}
	for _, i := range idx {
		s.rows = append(s.rows, d.rows[i])
		s.dense = append(s.dense, d.dense[i])
		s.failed = append(s.failed, d.failed[i])
	}
	s.balance()
	return s
}

// balance weighs each class by n / (2 n_class), so that a set of mostly successes does
// not learn to call everything a success.
func (d *design) balance() {
	n, failed := len(d.failed), 0
	for _, f := range d.failed {
		if f {
			failed++
		}
	}
	d.weight = make([]float64, n)
	for i, f := range d.failed {
		if f {
			d.weight[i] = float64(n) / (2 * float64(failed))
		} else {
			d.weight[i] = float64(n) / (2 * float64(n-failed))
		}
	}
}

// margin is the linear score of row i under the weights w (intercept last).
func (d *design) margin(w []float64, i int) float64 {
	z := w[len(w)-1]
	row := d.rows[i]
	for k, c := range row.cols {
		if d.reads(c) {
			z += w[c] * float64(row.vals[k])
		}
	}
	for k, x := range d.dense[i] {
		if k != analyzerScore || d.readsFindings {
			z += w[d.terms+k] * x
		}
	}
	return z
}

// fit finds the weights (intercept last) that minimise the weighted logistic loss plus
// the ridge penalty, with gonum's L-BFGS from zero: deterministic for the same design.
func fit(d *design) ([]float64, error) {
	dim := d.width() + 1
	problem := optimize.Problem{
		Func: func(w []float64) float64 { return d.loss(w, nil) },
		Grad: func(grad, w []float64) { d.loss(w, grad) },
	}
	settings := &optimize.Settings{GradientThreshold: 1e-5, MajorIterations: 1000}
	res, err := optimize.Minimize(problem, make([]float64, dim), settings, &optimize.LBFGS{})
	if err != nil && !errors.Is(err, optimize.ErrLinesearcherFailure) {
		return nil, fmt.Errorf("detector: fit: %w", err)
	}
	if res == nil || floats.HasNaN(res.X) {
		return nil, errors.New("detector: fit: the regression did not converge")
	}
	return res.X, nil
}

// loss is the objective at w; with grad non-nil it also writes the gradient there.
func (d *design) loss(w, grad []float64) float64 {
	if grad != nil {
		for i := range grad {
			grad[i] = 0
		}
	}
	bias := len(w) - 1
	var f float64
	for i := range d.rows {
		z := d.margin(w, i)
		y := -1.0
		if d.failed[i] {
			y = 1
		}
		f += d.weight[i] * softplus(-y*z)
		if grad == nil {
			continue
		}
		g := -y * d.weight[i] * sigmoid(-y*z)
		row := d.rows[i]
		for k, c := range row.cols {
			if d.reads(c) {
				grad[c] += g * float64(row.vals[k])
			}
		}
		for k, x := range d.dense[i] {
			if k != analyzerScore || d.readsFindings {
				grad[d.terms+k] += g * x
			}
		}
		grad[bias] += g
	}
	for j := range bias {
		f += l2 / 2 * w[j] * w[j]
		if grad != nil {
			grad[j] += l2 * w[j]
		}
	}
	return f
}

// softplus is ln(1 + e^x), without overflow.
func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
