package detector

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
	"github.com/checkup-dev/checkup/workers/stats"
)

// The splits BenchmarkDetectorQuality measures: each shipped labelled set cut by
// scenario (its ids carry the scenario), never at random, so no retry of a scenario
// sits on both sides.
var qualitySplits = []struct {
	set string
	cut int // scenarios below it train, the others are scored unlabelled
}{
	{transcripttest.Airline, 13}, // tasks 0–12 train, 13–24 are scored
	{transcripttest.Retail, 25},  // tasks 0–24 train, 25–49 are scored
}

// BenchmarkDetectorQuality trains a detector on one half of each shipped labelled set,
// split by scenario, and scores the other half with its labels unread, beside the
// one-feature baselines and the offline rules' failure score on the same half, and the
// cross-validated estimate and interval the training half states. Its figures are in
// BENCHMARKS.md:
//
//	go test ./workers/detector -run '^$' -bench DetectorQuality -benchtime 1x
func BenchmarkDetectorQuality(b *testing.B) {
	for _, s := range qualitySplits {
		b.Run(s.set, func(b *testing.B) {
			for b.Loop() {
				f, err := measureSplit(b, s.set, s.cut)
				b.ReportMetric(f.rules, "auroc_rules")
				b.ReportMetric(f.messages, "auroc_messages")
				b.ReportMetric(f.users, "auroc_user_turns")
				b.ReportMetric(f.tools, "auroc_tool_calls")
				if err != nil {
					b.Logf("%s: no detector: %v", s.set, err)
					continue
				}
				e := f.model.Estimate
				b.ReportMetric(f.detector, "auroc_unseen")
				b.ReportMetric(e.AUROC, "auroc_cv")
				b.ReportMetric(e.Low, "cv_low")
				b.ReportMetric(e.High, "cv_high")
				b.Log(f)
				b.Logf("interval holds the unseen figure: %v", e.Low <= f.detector && f.detector <= e.High)
				b.Logf("each variant trained alone, unseen AUROC: %s", aloneFigures(b, s.set, s.cut))
			}
		})
	}
}

func (f splitFigures) String() string {
	if f.model == nil {
		return fmt.Sprintf("%s: no detector (%d of %d trained on failed)", f.set, f.trainedFailed, f.trained)
	}
	e := f.model.Estimate
	variants := make([]string, len(e.Variants))
	for i, v := range e.Variants {
		variants[i] = fmt.Sprintf("%s %.3f", strings.Join(v.Features, "+"), v.AUROC)
	}
	return fmt.Sprintf("%s: trained on %d (%d failed), unseen %d (%d failed): detector %.3f (%s) | cv %.3f [%.3f, %.3f] (less %.3f for the choice; %s; %d groups) | rules %.3f | messages %.3f user turns %.3f tool calls %.3f",
		f.set, f.trained, e.Failed, f.unseen, f.unseenFailed, f.detector, strings.Join(f.model.Features, "+"), e.AUROC, e.Low, e.High,
		e.SelectionOptimism, strings.Join(variants, ", "), e.Groups, f.rules, f.messages, f.users, f.tools)
}

// BenchmarkDetectorIntervalCoverage checks the interval the detector states: over 30
// random halves of the airline set's scenarios (never of its conversations), how often
// the AUROC on the unseen half falls inside the interval the trained half stated, and
// the mean figures beside the rules' and counting messages'. Its figures are in
// BENCHMARKS.md:
//
//	go test ./workers/detector -run '^$' -bench DetectorIntervalCoverage -benchtime 1x
func BenchmarkDetectorIntervalCoverage(b *testing.B) {
	all := sampleExamples(b, transcripttest.Airline)
	for b.Loop() {
		rng := rand.New(rand.NewPCG(9, 9))
		held, n := 0, 0
		var unseen, cv, rules, messages float64
		// Each variant trained alone, for the record: what choosing among them could reach.
		sets := variants()
		chosen, aloneUnseen := make([]int, len(sets)), make([]float64, len(sets))
		for range 30 {
			inTrain := map[int]bool{}
			for _, s := range rng.Perm(25)[:13] {
				inTrain[s] = true
			}
			var learnt, test []sampleExample
			for _, e := range all {
				if inTrain[e.scenario] {
					learnt = append(learnt, e)
				} else {
					test = append(test, e)
				}
			}
			m, _, err := Train(context.Background(), walkOf(learnt))
			if err != nil {
				continue
			}
			var r, msg []float64
			var f []bool
			for _, e := range test {
				r, msg, f = append(r, e.rules), append(msg, float64(e.Doc.Counts.Messages)), append(f, e.Failed)
			}
			a := unseenAUROC(m, test)
			for v, set := range sets {
				if slices.Equal(m.Features, set.names()) {
					chosen[v]++
				}
				if alone, _, err := train(context.Background(), walkOf(learnt), []featureSet{set}); err == nil {
					aloneUnseen[v] += unseenAUROC(alone, test)
				}
			}
			n++
			unseen, cv, rules, messages = unseen+a, cv+m.Estimate.AUROC, rules+stats.AUROC(r, f), messages+stats.AUROC(msg, f)
			if m.Estimate.Low <= a && a <= m.Estimate.High {
				held++
			}
		}
		b.ReportMetric(float64(held)/float64(n), "coverage")
		b.ReportMetric(unseen/float64(n), "mean_auroc_unseen")
		b.ReportMetric(cv/float64(n), "mean_auroc_cv")
		b.ReportMetric(rules/float64(n), "mean_auroc_rules")
		b.ReportMetric(messages/float64(n), "mean_auroc_messages")
		b.Logf("interval held the unseen figure in %d of %d splits", held, n)
		for v, set := range sets {
			b.Logf("%s: chosen in %d; alone, mean unseen %.3f", strings.Join(set.names(), "+"), chosen[v], aloneUnseen[v]/float64(n))
		}
	}
}

// unseenAUROC is m's AUROC on examples, their labels read only to score it.
func unseenAUROC(m *Model, examples []sampleExample) float64 {
	s, f := make([]float64, len(examples)), make([]bool, len(examples))
	for i, e := range examples {
		s[i], f[i] = m.Score(e.Doc), e.Failed
	}
	return stats.AUROC(s, f)
}

// aloneFigures are the unseen AUROCs of each variant trained alone on the scenarios
// below cut, for the record: what choosing among them could reach, never what chooses.
func aloneFigures(tb testing.TB, set string, cut int) string {
	learnt, test := splitByScenario(sampleExamples(tb, set), cut)
	var out []string
	for _, v := range variants() {
		m, _, err := train(context.Background(), walkOf(learnt), []featureSet{v})
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %.3f", strings.Join(v.names(), "+"), unseenAUROC(m, test)))
	}
	return strings.Join(out, ", ")
}
