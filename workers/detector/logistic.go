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
	rows     []vector                 // the columns of the terms but the findings'
	findings []vector                 // the findings' columns (findingsBlock), read with readsFindings
	dense    [][denseFeatures]float64 // standardised
	failed   []bool
	weight   []float64
	terms    int // columns of the terms; the counts follow
	// readsFindings says whether the fit reads the findings' columns and the
	// analyzer's score.
	readsFindings bool
}

// add appends a document's row, split into its findings' columns and the others.
func (d *design) add(v vector, blocks []uint8, dense [denseFeatures]float64) {
	var main, findings vector
	for k, c := range v.cols {
		part := &main
		if blocks[c] == findingsBlock {
			part = &findings
		}
		part.cols, part.vals = append(part.cols, c), append(part.vals, v.vals[k])
	}
	d.rows, d.findings, d.dense = append(d.rows, main), append(d.findings, findings), append(d.dense, dense)
}

func (d *design) width() int { return d.terms + denseFeatures }

// subset is the design restricted to the rows at idx, reweighted for its classes.
func (d *design) subset(idx []int) *design {
	s := &design{terms: d.terms, readsFindings: d.readsFindings}
	for _, i := range idx {
		s.rows, s.findings = append(s.rows, d.rows[i]), append(s.findings, d.findings[i])
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
	z := w[len(w)-1] + d.rows[i].dot(w)
	if d.readsFindings {
		z += d.findings[i].dot(w)
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
	settings := &optimize.Settings{GradientThreshold: 1e-3, MajorIterations: 1000}
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
		d.rows[i].addTo(grad, g)
		if d.readsFindings {
			d.findings[i].addTo(grad, g)
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

// dot is the vector's product with w.
func (v vector) dot(w []float64) float64 {
	var z float64
	for k, c := range v.cols {
		z += w[c] * float64(v.vals[k])
	}
	return z
}

// addTo adds g times the vector to grad.
func (v vector) addTo(grad []float64, g float64) {
	for k, c := range v.cols {
		grad[c] += g * float64(v.vals[k])
	}
}
