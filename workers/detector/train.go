package detector

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/stat"

	"github.com/checkup-dev/checkup/workers/stats"
)

// MinPerOutcome is the fewest failed and the fewest successful labelled conversations a
// detector is trained from: with fewer, its cross-validated figure is too noisy to
// state and the model too weak to use.
const MinPerOutcome = 10

// Example is one labelled conversation to learn from.
type Example struct {
	Doc         Doc
	Fingerprint Fingerprint
	Failed      bool
}

// Examples walks the training conversations, always in the same order, handing each to
// yield; Train keeps each as a short list of term ids, so only one whole document is
// held at a time.
type Examples func(ctx context.Context, yield func(Example) error) error

// TooFewLabels is Train's error when one outcome has fewer than MinPerOutcome
// conversations: what the agent needs before it has a detector.
type TooFewLabels struct {
	Failed, Succeeded int
}

func (e *TooFewLabels) Error() string {
	return fmt.Sprintf("detector: %d failed and %d succeeded labelled conversations; %d of each are needed", e.Failed, e.Succeeded, MinPerOutcome)
}

// NeedFailed and NeedSucceeded are how many more labels of each outcome are needed.
func (e *TooFewLabels) NeedFailed() int    { return max(0, MinPerOutcome-e.Failed) }
func (e *TooFewLabels) NeedSucceeded() int { return max(0, MinPerOutcome-e.Succeeded) }

// Train learns a detector from the labelled conversations walk hands over. It
// cross-validates two variants, with and without the diagnosis' finding categories,
// over folds of whole near-duplicate groups, keeps the better one (without findings on
// a tie), states its figure less what picking the better of two flatters it by, and
// fits it on every example. Besides the model it returns each example's
// out-of-fold score (in walk order): the score of a model that did not see it, which is
// what a labelled conversation's failure score should be. It returns *TooFewLabels when
// an outcome has fewer than MinPerOutcome examples.
func Train(ctx context.Context, walk Examples) (*Model, []float64, error) {
	lex := newLexicon()
	var docs [][]termCount
	var fps []Fingerprint
	var failed []bool
	var dense [][denseFeatures]float64
	err := walk(ctx, func(e Example) error {
		docs = append(docs, lex.compact(e.Doc.Terms))
		fps = append(fps, e.Fingerprint)
		failed = append(failed, e.Failed)
		dense = append(dense, e.Doc.dense())
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	nFailed := 0
	for _, f := range failed {
		if f {
			nFailed++
		}
	}
	if nFailed < MinPerOutcome || len(failed)-nFailed < MinPerOutcome {
		return nil, nil, &TooFewLabels{Failed: nFailed, Succeeded: len(failed) - nFailed}
	}
	vocab, col := lex.vocabulary()
	lex = nil
	m := &Model{Format: modelFormat, vocabulary: vocab}
	m.DenseMean, m.DenseStd = meanStd(dense)
	d := &design{terms: len(m.Terms), failed: failed}
	for i, doc := range docs {
		d.add(m.tfidfCompact(doc, col), m.blocks, m.scale(dense[i]))
		docs[i] = nil
	}
	groups := Groups(fps)
	fold, k := folds(groups, failed)
	est := Estimate{TrainedOn: len(failed), Failed: nFailed, Succeeded: len(failed) - nFailed, Groups: countGroups(groups), Folds: k,
		Baselines: baselines(dense, failed)}
	// The fits weigh both outcomes alike; shift restores the agent's own share of
	// failures, so that a score is a probability and scores add up to failures.
	shift := math.Log(float64(nFailed) / float64(len(failed)-nFailed))
	without, with := &cvRun{fold: fold, k: k}, &cvRun{withFindings: true, fold: fold, k: k}
	if err := crossValidate(ctx, d, shift, without, with); err != nil {
		return nil, nil, err
	}
	best, chosen := without, 0
	est.WithoutFindings, est.WithFindings = round4(stats.AUROC(without.out, failed)), round4(stats.AUROC(with.out, failed))
	if est.WithFindings > est.WithoutFindings {
		best, chosen = with, 1
	}
	m.ReadsFindings = best.withFindings
	optimism := selectionOptimism([][]float64{without.out, with.out}, failed, groups, chosen)
	lo, hi, _ := groupBootstrap(best.out, failed, groups)
	// The conversations a PM has not labelled are often retries of scenarios that were:
	// the same variant over folds that ignore the groups says how it does on those, and
	// the interval reaches up to where that figure could fall.
	seen := &cvRun{withFindings: best.withFindings, fold: shuffledFolds(len(failed), k), k: k}
	if err := crossValidate(ctx, d, shift, seen); err != nil {
		return nil, nil, err
	}
	est.AUROCSeen = round4(stats.AUROC(seen.out, failed))
	if _, seenHi, ok := groupBootstrap(seen.out, failed, identity(len(failed))); ok {
		hi = max(hi, seenHi)
	}
	// Picking the better variant flatters its figure: the estimate and the interval's
	// lower end give that back; the upper end stays.
	est.SelectionOptimism = round4(optimism)
	est.AUROC = round4(stats.AUROC(best.out, failed) - optimism)
	est.Low, est.High = round4(max(0, lo-optimism)), round4(hi)
	bestOut := best.out
	m.Estimate = est
	d.readsFindings = m.ReadsFindings
	d.balance()
	w, err := fit(d)
	if err != nil {
		return nil, nil, err
	}
	m.Weights = w[:d.terms]
	copy(m.DenseWeights[:], w[d.terms:d.terms+denseFeatures])
	m.Intercept = w[len(w)-1] + shift
	if !m.ReadsFindings {
		for i, b := range m.blocks {
			if b == findingsBlock {
				m.Weights[i] = 0
			}
		}
		m.DenseWeights[analyzerScore] = 0
	}
	return m, bestOut, nil
}

// shuffledFolds assigns n rows to k folds at random, from a fixed seed, ignoring
// groups: a fold then holds retries of scenarios the others also hold.
func shuffledFolds(n, k int) []int {
	fold := make([]int, n)
	for i, j := range rand.New(rand.NewPCG(3, 4)).Perm(n) {
		fold[j] = i % k
	}
	return fold
}

// identity is every row a group of its own.
func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// cvRun is one cross-validation: a variant (with or without the findings) over an
// assignment of the rows to k folds, and the out-of-fold score of every row.
type cvRun struct {
	withFindings bool
	fold         []int
	k            int
	out          []float64
}

// crossValidate scores every row of each run with a model fitted on the other folds
// of that run, its margin shifted by shift. The fits run on the machine's cores; each
// writes its own rows, so the result does not depend on their order.
func crossValidate(ctx context.Context, d *design, shift float64, runs ...*cvRun) error {
	type job struct {
		run  *cvRun
		fold int
	}
	var all []job
	for _, r := range runs {
		r.out = make([]float64, len(d.rows))
		for f := range r.k {
			all = append(all, job{r, f})
		}
	}
	jobs := make(chan int)
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(all)) {
		wg.Go(func() {
			for i := range jobs {
				j := all[i]
				errs[i] = fitFold(d, j.run.fold, j.fold, j.run.withFindings, shift, j.run.out)
			}
		})
	}
	for i := range all {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// fitFold fits the variant on the rows outside fold f and scores the rows inside it
// into out.
func fitFold(d *design, fold []int, f int, withFindings bool, shift float64, out []float64) error {
	var train, test []int
	for i, fi := range fold {
		if fi == f {
			test = append(test, i)
		} else {
			train = append(train, i)
		}
	}
	variant := *d
	variant.readsFindings = withFindings
	sub := variant.subset(train)
	if !bothOutcomes(sub.failed) {
		for _, i := range test {
			out[i] = sigmoid(shift)
		}
		return nil
	}
	w, err := fit(sub)
	if err != nil {
		return err
	}
	for _, i := range test {
		out[i] = sigmoid(variant.margin(w, i) + shift)
	}
	return nil
}

func bothOutcomes(failed []bool) bool {
	pos := 0
	for _, f := range failed {
		if f {
			pos++
		}
	}
	return pos > 0 && pos < len(failed)
}

func countGroups(groups []int) int {
	seen := map[int]bool{}
	for _, g := range groups {
		seen[g] = true
	}
	return len(seen)
}

// meanStd are the mean and standard deviation of each dense feature; a feature that
// never varies gets deviation 1, so it standardises to zero.
func meanStd(dense [][denseFeatures]float64) (mean, std [denseFeatures]float64) {
	col := make([]float64, len(dense))
	for k := range denseFeatures {
		for i, s := range dense {
			col[i] = s[k]
		}
		mean[k], std[k] = stat.MeanStdDev(col, nil)
		if std[k] == 0 || math.IsNaN(std[k]) {
			std[k] = 1
		}
	}
	return mean, std
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// Baseline is the AUROC a one-feature score reaches: a count of the conversation, more
// meaning failed, never flipped by the labels. A detector is worth stating only beside
// what counting alone would score.
type Baseline struct {
	Name  string  `json:"name"`
	AUROC float64 `json:"auroc"`
}

// Baselines are the three counts' AUROCs against failed: messages (but the system
// prompt), user turns and tool calls.
func Baselines(c []Counts, failed []bool) []Baseline {
	msgs, users, tools := make([]float64, len(c)), make([]float64, len(c)), make([]float64, len(c))
	for i, x := range c {
		msgs[i], users[i], tools[i] = float64(x.Messages), float64(x.UserTurns), float64(x.ToolCalls)
	}
	return []Baseline{
		{"messages", round4(stats.AUROC(msgs, failed))},
		{"user_turns", round4(stats.AUROC(users, failed))},
		{"tool_calls", round4(stats.AUROC(tools, failed))},
	}
}

// baselines are Baselines of the training set, from its dense features (log(1+n)
// keeps the counts' order).
func baselines(dense [][denseFeatures]float64, failed []bool) []Baseline {
	c := make([]Counts, len(dense))
	for i, s := range dense {
		c[i] = Counts{Messages: int(math.Round(math.Expm1(s[0]))), UserTurns: int(math.Round(math.Expm1(s[1]))), ToolCalls: int(math.Round(math.Expm1(s[2])))}
	}
	return Baselines(c, failed)
}
