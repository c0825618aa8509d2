package cluster

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

// testClusters makes risks RISK and actions ACTION clusters, numbered in that order,
// each seen in a few conversations of 100 and ranked by how many: some RISK clusters
// rank below every ACTION cluster.
func testClusters(risks, actions int) []Cluster {
	var out []Cluster
	for i := range risks {
		out = append(out, Cluster{Idx: len(out), Type: analyzer.TypeRisk, Title: fmt.Sprintf("risk %d", i),
			ConversationCount: 2 + i, Prevalence: float64(2+i) / 100, Severity: 2, Confidence: 1})
	}
	for i := range actions {
		out = append(out, Cluster{Idx: len(out), Type: analyzer.TypeAction, Title: fmt.Sprintf("action %d", i),
			ConversationCount: 10 + i, Prevalence: float64(10+i) / 100, Severity: 2, Confidence: 1})
	}
	return out
}

func TestSelectCandidatesTakesAllRisksAndTenActions(t *testing.T) {
	t.Parallel()
	got := SelectCandidates(testClusters(12, 15))
	require.Len(t, got, 22)
	var titles []string
	for _, c := range got[:10] {
		require.Equal(t, analyzer.TypeAction, c.Type)
		titles = append(titles, c.Title)
	}
	// The ten ACTION clusters that reach most conversations, most first: 14 down to 5,
	// before the RISK clusters, which reach fewer.
	require.Equal(t, []string{"action 14", "action 13", "action 12", "action 11", "action 10",
		"action 9", "action 8", "action 7", "action 6", "action 5"}, titles)
	for _, c := range got[10:] {
		require.Equal(t, analyzer.TypeRisk, c.Type)
	}
	require.Equal(t, "risk 11", got[10].Title)
}

func TestSelectCandidatesRiskNeverTakesAnActionPlace(t *testing.T) {
	t.Parallel()
	// Risks ranking far above every action still leave ten places to actions, and
	// risks ranking below them are all taken.
	clusters := testClusters(0, 15)
	for i := range 30 {
		n := 2 + i%2*60
		clusters = append(clusters, Cluster{Idx: len(clusters), Type: analyzer.TypeRisk, ConversationCount: n, Prevalence: float64(n) / 100, Severity: 4, Confidence: 1})
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
		n := 2 + i%3
		clusters = append(clusters, Cluster{Idx: i, Type: analyzer.TypeAction, PriorityScore: 40,
			ConversationCount: n, Prevalence: float64(n) / 50, Severity: 3, Confidence: 1})
	}
	want := SelectCandidates(clusters)
	// Equal otherwise: more conversations first, then the lower cluster index.
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
