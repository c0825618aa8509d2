package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/stats"
)

func TestSplitByOutcome(t *testing.T) {
	t.Parallel()
	failed, succeeded := transcript.LabelFailed, transcript.LabelSucceeded
	// 20 labelled conversations, 10 failed; seq 21 has no label.
	labels := map[int]transcript.Label{21: transcript.LabelNone}
	for seq := 1; seq <= 20; seq++ {
		labels[seq] = succeeded
		if seq <= 10 {
			labels[seq] = failed
		}
	}
	clusters := []Cluster{
		{Idx: 0, Type: analyzer.TypeAction, ConversationSeqs: []int{1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 21}}, // 8 failed, 2 succeeded
		{Idx: 1, Type: analyzer.TypeAction, ConversationSeqs: []int{9, 13, 14}},                          // 1 failed, 2 succeeded
	}
	SplitByOutcome(clusters, labels)
	o := clusters[0].Outcomes
	require.Equal(t, Outcomes{
		Failed: 8, Succeeded: 2, Unlabelled: 1,
		FailureRateIn: 0.8, FailureRateOut: 0.2, FailureLift: 1.6, ExcessFailures: 3,
		PValue: o.PValue, QValue: o.QValue,
	}, *o)
	require.InDelta(t, 2*2126.0/184756, o.PValue, 1e-12) // see stats.TestFisherExact
	p1 := stats.FisherExact(stats.Table{FailedWith: 1, SucceededWith: 2, FailedWithout: 9, SucceededWithout: 8})
	require.InDelta(t, p1, clusters[1].Outcomes.PValue, 1e-12)
	// Two tests: q = p·2/1 for the smaller p, and the larger stays at p·2/2 capped by 1.
	require.InDelta(t, 2*o.PValue, o.QValue, 1e-12)
	require.InDelta(t, min(p1, 1), clusters[1].Outcomes.QValue, 1e-12)

	// Without labels nothing is split.
	bare := []Cluster{{ConversationSeqs: []int{1}}}
	SplitByOutcome(bare, map[int]transcript.Label{1: transcript.LabelNone})
	require.Nil(t, bare[0].Outcomes)
}

func idxs(cs []Cluster) []int {
	out := make([]int, len(cs))
	for i, c := range cs {
		out[i] = c.Idx
	}
	return out
}
