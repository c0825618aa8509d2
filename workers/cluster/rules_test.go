package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

func TestNormalTitleKeepsOneRulePerIssue(t *testing.T) {
	t.Parallel()
	require.Equal(t, NormalTitle("Agent declines the request"), NormalTitle("agent DECLINES the requests"),
		"case, inflection and the parties named do not matter")
	require.Equal(t, NormalTitle("Booking 1001 changed without a yes"), NormalTitle("booking 2002 changed without a yes"),
		"ids and numbers do not matter")
	require.NotEqual(t, NormalTitle("User asks for a human"), NormalTitle("User repeats the request"))
	require.Equal(t, "42", NormalTitle("  42 "), "a title of nothing but numbers keeps its folded self")
}

func TestRulesMatchNearDuplicatesAsRunsAreMatched(t *testing.T) {
	t.Parallel()
	rule := func(title string) Rule { return Rule{Type: analyzer.TypeAction, Category: "c", Title: title} }
	issue := func(title string) Cluster { return Cluster{Type: analyzer.TypeAction, Category: "c", Title: title} }
	require.True(t, rule("Booking 1001 changed without the agent confirming").Matches(issue("Agent did not confirm booking 1002")))
	require.True(t, rule("用户要求转人工但未转接").Matches(issue("用户多次要求转人工未被转接")))
	require.True(t, rule("Agent declines the request").Matches(issue("agent DECLINES the requests")))
	require.False(t, rule("User asks for a human").Matches(issue("User repeats the request")))
}

func TestApplyRules(t *testing.T) {
	t.Parallel()
	clusters := []Cluster{
		{Idx: 0, Type: analyzer.TypeAction, Category: "refusal", Title: "Agent declines to cancel a basic economy booking"},
		{Idx: 1, Type: analyzer.TypeRisk, Category: "refusal", Title: "Agent declines to cancel basic economy bookings"},
		{Idx: 2, Type: analyzer.TypeAction, Category: "handoff", Title: "Agent declines to cancel a basic economy booking"},
		{Idx: 3, Type: analyzer.TypeAction, Category: "refusal", Title: "Agent refuses a refund", Expected: true, ExpectedBy: ExpectedByPolicy},
		{Idx: 4, Type: analyzer.TypeAction, Category: "refusal", Title: "Agent declines to cancel basic economy bookings"},
	}
	ApplyRules(clusters, []Rule{
		{Type: analyzer.TypeAction, Category: "refusal", Title: "Agent declines cancelling basic economy bookings", Reason: "policy"},
		{Type: analyzer.TypeAction, Category: "refusal", Title: "Agent refuses a refund", Reason: "ours"},
	})
	var marked []int
	for _, c := range clusters {
		if c.Expected && c.ExpectedBy == ExpectedByOwner {
			marked = append(marked, c.Idx)
			require.Equal(t, "policy", c.ExpectedReason)
		}
	}
	require.Equal(t, []int{0, 4}, marked, "same type, same category, a title that says the same")
	require.Equal(t, ExpectedByPolicy, clusters[3].ExpectedBy, "the policy's mark stays the policy's")
}

// TestANotExpectedRuleOverrulesOnlyThePolicy: the owner's word that an issue is not
// expected makes the policy's expected cluster of it an issue, with their reason, and
// leaves alone an issue of the same title and one an expected rule marks.
func TestANotExpectedRuleOverrulesOnlyThePolicy(t *testing.T) {
	t.Parallel()
	title := "Agent declines to share a gift card balance"
	clusters := []Cluster{
		{Idx: 0, Type: analyzer.TypeAction, Category: "refusal", Title: title, Expected: true, ExpectedBy: ExpectedByPolicy},
		{Idx: 1, Type: analyzer.TypeAction, Category: "refusal", Title: title},
		{Idx: 2, Type: analyzer.TypeAction, Category: "refusal", Title: "Agent refuses a refund", Expected: true, ExpectedBy: ExpectedByPolicy},
		{Idx: 3, Type: analyzer.TypeAction, Category: "refusal", Title: "Agent refuses a refund"},
	}
	ApplyRules(clusters, []Rule{
		{Type: analyzer.TypeAction, Category: "refusal", Title: "Agent declines to share gift card balances", Reason: "it may share them", NotExpected: true},
		{Type: analyzer.TypeAction, Category: "refusal", Title: "Agent refuses a refund", Reason: "ours"},
	})
	require.False(t, clusters[0].Expected, "overruled: an issue")
	require.True(t, clusters[0].PolicyOverruled)
	require.Equal(t, "it may share them", clusters[0].ExpectedReason)
	require.True(t, clusters[0].FindingsExpected(), "its findings stay as the policy marked them")
	require.Equal(t, Cluster{Idx: 1, Type: analyzer.TypeAction, Category: "refusal", Title: title}, clusters[1], "an issue already")
	require.Equal(t, ExpectedByPolicy, clusters[2].ExpectedBy, "an expected rule does not touch the policy's mark")
	require.False(t, clusters[2].PolicyOverruled)
	require.Equal(t, ExpectedByOwner, clusters[3].ExpectedBy)
}

func TestRerankLeavesRanksAsTheyWereWhenNothingChanged(t *testing.T) {
	t.Parallel()
	clusters := testClusters(3, 14)
	stored := storedActions(clusters, 7) // candidate 7 failed
	original := AssignRanks(stored)
	got := Rerank(clusters, stored)
	for i := range got {
		require.Equal(t, rankOf(original, got[i].CandidateIndex), got[i].Rank, "candidate %d", got[i].CandidateIndex)
	}
}

func TestRerankDropsTheExpectedAndClosesTheGap(t *testing.T) {
	t.Parallel()
	clusters := testClusters(3, 14)
	stored := storedActions(clusters, -1)
	before := Rerank(clusters, stored)
	top := SelectCandidates(clusters)[4] // the second ACTION candidate, rank 5
	clusters[top.Idx].Expected, clusters[top.Idx].ExpectedBy = true, ExpectedByOwner

	after := Rerank(clusters, stored)
	var ranks []int
	for i, a := range after {
		if a.ClusterIdx == top.Idx {
			require.Zero(t, a.Rank, "the expected cluster's Action leaves the ranking")
			continue
		}
		want := before[i].Rank
		if want > 5 {
			want--
		}
		require.Equal(t, want, a.Rank, "the others keep their order, closing the gap")
		ranks = append(ranks, a.Rank)
	}
	require.ElementsMatch(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, ranks,
		"1..N without gaps; the ACTION cluster that now makes the ten has no Action stored and is passed over")

	clusters[top.Idx].Expected, clusters[top.Idx].ExpectedBy = false, ""
	require.Equal(t, before, Rerank(clusters, stored), "taking the mark back gives the ranks back")
}

// TestRerankKeepsWrittenActionsBeforeOneNeverWritten: an issue that was expected when
// the Actions were written has none; taken back, it ranks among the ten ACTION
// candidates, but it pushes no written Action out: every written one keeps a rank.
func TestRerankKeepsWrittenActionsBeforeOneNeverWritten(t *testing.T) {
	t.Parallel()
	clusters := testClusters(3, 14)
	best := SelectCandidates(clusters)[3] // the first ACTION candidate
	clusters[best.Idx].Expected, clusters[best.Idx].ExpectedBy = true, ExpectedByOwner
	stored := storedActions(clusters, -1) // written while it was expected: ten others
	clusters[best.Idx].Expected, clusters[best.Idx].ExpectedBy = false, ""

	var ranks []int
	for _, a := range Rerank(clusters, stored) {
		require.NotEqual(t, best.Idx, a.ClusterIdx, "it has no Action stored")
		ranks = append(ranks, a.Rank)
	}
	require.ElementsMatch(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, ranks, "every written Action is ranked")
}

// storedActions are the Actions the pipeline stored for clusters: one per candidate in
// candidate order, written but for candidate failed (-1 for none).
func storedActions(clusters []Cluster, failed int) []ActionResult {
	var out []ActionResult
	for i, c := range SelectCandidates(clusters) {
		out = append(out, ActionResult{CandidateIndex: i, ClusterIdx: c.Idx, Written: i != failed})
	}
	return out
}

func rankOf(results []ActionResult, candidate int) int {
	for _, r := range results {
		if r.CandidateIndex == candidate {
			return r.Rank
		}
	}
	return -1
}
