package cluster

import (
	"math"

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

// ExcessFormula is how the failures a cluster explains are counted from labels; the
// Actions are ranked by a lower bound of them (SupportFormula).
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

// Estimated is what an agent's failure detector says of a cluster: how many of its
// conversations failed (a labelled one counts by its label, any other by its failure
// score), and how many more that is than its size predicts at the run's estimated
// failure rate.
type Estimated struct {
	Failures float64 `json:"failures"`
	Excess   float64 `json:"excess"`
}

// EstimatedFormula is how Estimated is counted; the Actions of a run a detector scored
// are ranked by a lower bound of its excess (SupportFormula).
const EstimatedFormula = "estimated failures = labelled failed + the failure scores of the unlabelled; excess = estimated failures − conversations × the run's estimated failure rate"

// EstimateFailures sets each cluster's Estimated from the labels and failure scores of
// the analysed conversations (seq → label, seq → score), for a run an agent's detector
// scored.
func EstimateFailures(clusters []Cluster, labels map[int]transcript.Label, scores map[int]float64) {
	estimate := func(seq int) float64 {
		switch labels[seq] {
		case transcript.LabelFailed:
			return 1
		case transcript.LabelSucceeded:
			return 0
		}
		return scores[seq]
	}
	var total float64
	for seq := range scores {
		total += estimate(seq)
	}
	rate := 0.0
	if len(scores) > 0 {
		rate = total / float64(len(scores))
	}
	for i := range clusters {
		var failures float64
		for _, seq := range clusters[i].ConversationSeqs {
			failures += estimate(seq)
		}
		n := float64(len(clusters[i].ConversationSeqs))
		clusters[i].Estimated = &Estimated{Failures: round4(failures), Excess: round4(failures - n*rate)}
	}
}
