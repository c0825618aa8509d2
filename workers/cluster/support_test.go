package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

func TestWilsonLow(t *testing.T) {
	t.Parallel()
	require.Zero(t, wilsonLow(0, 10))
	require.Zero(t, wilsonLow(3, 0))
	// All n succeed: n / (n + z²).
	require.InDelta(t, 1/(1+supportZ*supportZ), wilsonLow(1, 1), 1e-12)
	require.InDelta(t, 12/(12+supportZ*supportZ), wilsonLow(12, 12), 1e-12)
	// 50 of 100: the textbook value at z = 1.645.
	require.InDelta(t, 0.4188, wilsonLow(50, 100), 1e-4)
	require.Less(t, wilsonLow(2, 4), wilsonLow(20, 40), "the same rate on more conversations is surer")
}

// TestOneConversationNeverOutranksACommonProblem: without failures known, an issue
// ranks by the lower bound of its share times its severity and confidence, so one
// severe conversation ranks below a milder problem of many, and one seen once gets no
// Action.
func TestOneConversationNeverOutranksACommonProblem(t *testing.T) {
	t.Parallel()
	clusters := []Cluster{
		{Idx: 0, Type: analyzer.TypeRisk, ConversationCount: 1, Prevalence: 0.01, Severity: 5, Confidence: 1, PriorityScore: 80},
		{Idx: 1, Type: analyzer.TypeAction, ConversationCount: 2, Prevalence: 0.02, Severity: 5, Confidence: 1, PriorityScore: 70},
		{Idx: 2, Type: analyzer.TypeAction, ConversationCount: 9, Prevalence: 0.09, Severity: 2, Confidence: 0.8, PriorityScore: 40},
	}
	require.True(t, clusters[0].Support().SeenOnce)
	require.Equal(t, []int{2, 1}, idxs(SelectCandidates(clusters)))
	s := clusters[2].Support()
	require.Equal(t, BasisPrevalence, s.Basis)
	require.InDelta(t, wilsonLow(9, 100), s.ShareLow, 1e-4)
	require.InDelta(t, s.ShareLow/4*0.8, s.Reach, 1e-4)
	require.Equal(t, SupportFormula, s.Formula)
	expected := append(clusters, Cluster{Idx: 3, Type: analyzer.TypeAction, ConversationCount: 30, Prevalence: 0.3, Severity: 4, Confidence: 1, Expected: true})
	require.Equal(t, []int{2, 1, 0, 3}, RankOrder(expected), "in the Actions' order, the issue seen once after them, the expected one last")

	// The rank and the priority show one mean severity, not two roundings of it
	// (1.4483 read 1.4 beside 1.45 read 1.5).
	c := Cluster{ConversationCount: 29, Prevalence: 0.29, Severity: 1.448276, Confidence: 0.9}
	_, parts := Priority(c.Prevalence, c.Severity, c.Confidence)
	require.Equal(t, c.Support().Severity, parts.Severity)
	require.Equal(t, c.Support().Confidence, parts.Confidence)
}

// TestRankedByFailuresExplainedAtLeast: with labels, the failures an issue explains
// beyond the run's rate, at least, rank it: all 3 of 3 failing explains less for
// sure than 9 of 10, and an issue failing at the run's rate explains none, whatever
// its priority.
func TestRankedByFailuresExplainedAtLeast(t *testing.T) {
	t.Parallel()
	labels := map[int]transcript.Label{}
	for seq := 1; seq <= 40; seq++ {
		labels[seq] = transcript.LabelSucceeded
		if seq <= 20 {
			labels[seq] = transcript.LabelFailed
		}
	}
	seqs := func(failed, succeeded int) []int {
		var out []int
		for i := range failed {
			out = append(out, 1+i)
		}
		for i := range succeeded {
			out = append(out, 21+i)
		}
		return out
	}
	clusters := []Cluster{
		{Idx: 0, Type: analyzer.TypeRisk, ConversationSeqs: seqs(3, 0), Prevalence: 3.0 / 40, Severity: 5, PriorityScore: 90},
		{Idx: 1, Type: analyzer.TypeAction, ConversationSeqs: seqs(9, 1), Prevalence: 10.0 / 40, Severity: 2, PriorityScore: 30},
		{Idx: 2, Type: analyzer.TypeAction, ConversationSeqs: seqs(6, 6), Prevalence: 12.0 / 40, Severity: 3, PriorityScore: 95},
	}
	SplitByOutcome(clusters, labels)
	s := clusters[1].Support()
	require.Equal(t, BasisLabels, s.Basis)
	require.InDelta(t, 0.5, s.RunRate, 1e-9)
	require.InDelta(t, 10*(wilsonLow(9, 10)-0.5), s.Explained, 1e-4)
	require.Zero(t, clusters[2].Support().Explained, "fails at the run's rate")
	require.Equal(t, []int{1, 0, 2}, idxs(SelectCandidates(clusters)))
	require.Greater(t, clusters[0].Support().Explained, 0.0)
}

// TestRankedByEstimatedFailures: a run a detector scored ranks by the failures its
// scores estimate, at least, against the run's estimated rate.
func TestRankedByEstimatedFailures(t *testing.T) {
	t.Parallel()
	scores := map[int]float64{}
	for seq := 1; seq <= 40; seq++ {
		scores[seq] = 0.2
		if seq <= 10 {
			scores[seq] = 0.95
		}
	}
	clusters := []Cluster{
		{Idx: 0, Type: analyzer.TypeAction, ConversationSeqs: []int{1, 2, 3, 4, 5, 6, 7, 8}, Prevalence: 0.2, Severity: 2},
		{Idx: 1, Type: analyzer.TypeAction, ConversationSeqs: []int{11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22}, Prevalence: 0.3, Severity: 4},
	}
	EstimateFailures(clusters, map[int]transcript.Label{}, scores)
	s := clusters[0].Support()
	require.Equal(t, BasisDetector, s.Basis)
	require.InDelta(t, (10*0.95+30*0.2)/40, s.RunRate, 1e-4)
	require.InDelta(t, 7.6, s.Failures, 1e-9)
	require.Positive(t, s.Explained)
	require.Zero(t, clusters[1].Support().Explained)
	require.Equal(t, []int{0, 1}, idxs(SelectCandidates(clusters)), "the common, severe issue explains no failure")

	// Where every conversation of an issue is labelled, its labels say it.
	labels := map[int]transcript.Label{}
	for seq := 1; seq <= 40; seq++ {
		labels[seq] = transcript.LabelSucceeded
		if seq <= 10 {
			labels[seq] = transcript.LabelFailed
		}
	}
	SplitByOutcome(clusters, labels)
	EstimateFailures(clusters, labels, scores)
	require.Equal(t, BasisLabels, clusters[0].Support().Basis)
	require.InDelta(t, 8, clusters[0].Support().Failures, 1e-9)
}
