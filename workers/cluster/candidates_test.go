package cluster

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

// testClusters makes risks RISK and actions ACTION clusters, numbered in that order,
// with scores that put some RISK clusters below every ACTION cluster.
func testClusters(risks, actions int) []Cluster {
	var out []Cluster
	for i := range risks {
		out = append(out, Cluster{Idx: len(out), Type: analyzer.TypeRisk, Title: fmt.Sprintf("risk %d", i),
			PriorityScore: float64(5 + i), ConversationCount: 1})
	}
	for i := range actions {
		out = append(out, Cluster{Idx: len(out), Type: analyzer.TypeAction, Title: fmt.Sprintf("action %d", i),
			PriorityScore: float64(50 + i), ConversationCount: 2})
	}
	return out
}

func TestSelectCandidatesTakesAllRisksAndTenActions(t *testing.T) {
	t.Parallel()
	got := SelectCandidates(testClusters(12, 15))
	require.Len(t, got, 22)
	for i, c := range got[:12] {
		require.Equal(t, analyzer.TypeRisk, c.Type, "candidate %d", i)
	}
	var titles []string
	for _, c := range got[12:] {
		require.Equal(t, analyzer.TypeAction, c.Type)
		titles = append(titles, c.Title)
	}
	// The ten highest-scoring ACTION clusters, best first: 14 down to 5.
	require.Equal(t, []string{"action 14", "action 13", "action 12", "action 11", "action 10",
		"action 9", "action 8", "action 7", "action 6", "action 5"}, titles)
	require.Equal(t, "risk 11", got[0].Title, "risks are ordered by their own priority")
}

func TestSelectCandidatesRiskNeverTakesAnActionPlace(t *testing.T) {
	t.Parallel()
	// Risks scoring far above every action still leave ten places to actions, and
	// risks scoring below them are all taken.
	clusters := testClusters(0, 15)
	for i := range 30 {
		clusters = append(clusters, Cluster{Idx: len(clusters), Type: analyzer.TypeRisk, PriorityScore: float64(99 - i%2*98)})
	}
	got := SelectCandidates(clusters)
	risks, actions := 0, 0
	for _, c := range got {
		if c.Type == analyzer.TypeRisk {
			risks++
		} else {
			actions++
		}
	}
	require.Equal(t, 30, risks)
	require.Equal(t, MaxActionCandidates, actions)

	few := SelectCandidates(testClusters(2, 3))
	require.Len(t, few, 5, "fewer than ten ACTION clusters: all of them")
	require.Empty(t, SelectCandidates(nil))
}

func TestSelectCandidatesTieBreakIsDeterministic(t *testing.T) {
	t.Parallel()
	var clusters []Cluster
	for i := range 14 {
		clusters = append(clusters, Cluster{Idx: i, Type: analyzer.TypeAction, PriorityScore: 40,
			ConversationCount: 1 + i%3})
	}
	want := SelectCandidates(clusters)
	// Equal scores: more conversations first, then the lower cluster index.
	require.Equal(t, 2, want[0].Idx)
	require.Equal(t, 5, want[1].Idx)
	for range 20 {
		shuffled := append([]Cluster(nil), clusters...)
		rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		require.Equal(t, want, SelectCandidates(shuffled), "input order does not matter")
	}
}

func TestAssignRanksIgnoresCompletionOrder(t *testing.T) {
	t.Parallel()
	var results []ActionResult
	for i := range 22 {
		results = append(results, ActionResult{CandidateIndex: i, ClusterIdx: 100 + i, Written: i%7 != 3})
	}
	want := AssignRanks(results)
	rank := 0
	for i, r := range want {
		require.Equal(t, i, r.CandidateIndex, "results come back in candidate order")
		if r.Written {
			rank++
			require.Equal(t, rank, r.Rank, "ranks are contiguous")
		} else {
			require.Zero(t, r.Rank, "a failure has no rank")
		}
	}
	require.Equal(t, 22-3, rank)
	for range 50 {
		shuffled := append([]ActionResult(nil), results...)
		rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		require.Equal(t, want, AssignRanks(shuffled))
	}
}
