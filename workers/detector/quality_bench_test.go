package detector

import (
	"context"
	"fmt"
	"math/rand/v2"
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
			}
		})
	}
}

func (f splitFigures) String() string {
	if f.model == nil {
		return fmt.Sprintf("%s: no detector (%d of %d trained on failed)", f.set, f.trainedFailed, f.trained)
	}
	e := f.model.Estimate
	return fmt.Sprintf("%s: trained on %d (%d failed), unseen %d (%d failed): detector %.3f | cv %.3f [%.3f, %.3f] (without findings %.3f, with %.3f, less %.3f for the choice; %d groups) | rules %.3f | messages %.3f user turns %.3f tool calls %.3f",
		f.set, f.trained, e.Failed, f.unseen, f.unseenFailed, f.detector, e.AUROC, e.Low, e.High, e.WithoutFindings, e.WithFindings, e.SelectionOptimism, e.Groups, f.rules, f.messages, f.users, f.tools)
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
		for range 30 {
			inTrain := map[int]bool{}
			for _, s := range rng.Perm(25)[:13] {
				inTrain[s] = true
			}
			var train, test []sampleExample
			for _, e := range all {
				if inTrain[e.scenario] {
					train = append(train, e)
				} else {
					test = append(test, e)
				}
			}
			m, _, err := Train(context.Background(), walkOf(train))
			if err != nil {
				continue
			}
			var s, r, msg []float64
			var f []bool
			for _, e := range test {
				s, r = append(s, m.Score(e.Doc)), append(r, e.rules)
				msg, f = append(msg, float64(e.Doc.Counts.Messages)), append(f, e.Failed)
			}
			a := stats.AUROC(s, f)
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
	}
}
