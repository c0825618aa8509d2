package cluster

import (
	"cmp"
	"math"
	"slices"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/stats"
)

// Outcomes is a cluster's split by the outcome labels of the analysed conversations:
// how many of its conversations failed, succeeded or carry no label, the failure rate
// inside and outside it, its lift (the rate inside over the rate of all labelled
// conversations), the failures it explains beyond what its size predicts, and a
// two-sided Fisher exact test with the Benjamini–Hochberg q-value over the task's
// clusters.
type Outcomes struct {
	Failed         int     `json:"failed"`
	Succeeded      int     `json:"succeeded"`
	Unlabelled     int     `json:"unlabelled"`
	FailureRateIn  float64 `json:"failure_rate_in"`
	FailureRateOut float64 `json:"failure_rate_out"`
	FailureLift    float64 `json:"failure_lift"`
	ExcessFailures float64 `json:"excess_failures"`
	PValue         float64 `json:"p_value"`
	QValue         float64 `json:"q_value"`
}

// ExcessFormula is how the failures a cluster explains are counted; ACTION candidates
// are ranked by it when the upload carries labels.
const ExcessFormula = "excess failures = failed in cluster − labeled in cluster × failure rate of all labeled conversations"

// SplitByOutcome sets each cluster's Outcomes from the labels of the analysed
// conversations (seq → label; transcript.LabelNone for a conversation without one).
// Without a single labelled conversation it leaves every cluster's Outcomes nil. The
// q-values correct for the number of clusters tested, so a cluster that looks
// over-represented among failures only by chance among many is not believed.
func SplitByOutcome(clusters []Cluster, labels map[int]transcript.Label) {
	var failed, succeeded int
	for _, l := range labels {
		switch l {
		case transcript.LabelFailed:
			failed++
		case transcript.LabelSucceeded:
			succeeded++
		}
	}
	if failed+succeeded == 0 {
		return
	}
	ps := make([]float64, len(clusters))
	var fisher stats.Fisher
	for i := range clusters {
		o := &Outcomes{}
		for _, seq := range clusters[i].ConversationSeqs {
			switch labels[seq] {
			case transcript.LabelFailed:
				o.Failed++
			case transcript.LabelSucceeded:
				o.Succeeded++
			default:
				o.Unlabelled++
			}
		}
		t := stats.Table{
			FailedWith: o.Failed, SucceededWith: o.Succeeded,
			FailedWithout: failed - o.Failed, SucceededWithout: succeeded - o.Succeeded,
		}
		o.FailureRateIn, o.FailureRateOut = round4(t.RateWith()), round4(t.RateWithout())
		o.FailureLift, o.ExcessFailures = round4(t.Lift()), round4(t.ExcessFailures())
		o.PValue = fisher.Exact(t)
		ps[i] = o.PValue
		clusters[i].Outcomes = o
	}
	for i, q := range stats.BenjaminiHochberg(ps) {
		clusters[i].Outcomes.QValue = q
	}
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// byExplainedFailures orders ACTION clusters by the failures they explain, most first,
// then by q-value, priorityScore and index.
func byExplainedFailures(a, b Cluster) int {
	return cmp.Or(
		cmp.Compare(b.Outcomes.ExcessFailures, a.Outcomes.ExcessFailures),
		cmp.Compare(a.Outcomes.QValue, b.Outcomes.QValue),
		cmp.Compare(b.PriorityScore, a.PriorityScore),
		cmp.Compare(a.Idx, b.Idx),
	)
}

// labelled reports whether the clusters carry an outcome split.
func labelled(clusters []Cluster) bool {
	return slices.ContainsFunc(clusters, func(c Cluster) bool { return c.Outcomes != nil })
}
