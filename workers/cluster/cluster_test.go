package cluster

import (
	"math/rand/v2"
	"testing"

	"github.com/checkup-dev/checkup/workers/textmatch"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

func TestClusterTitleThresholdExamples(t *testing.T) {
	t.Parallel()
	require.GreaterOrEqual(t, textmatch.Similarity("Tool call returns an error", "tool call returned an error"), TitleThreshold)
	require.Less(t, textmatch.Similarity("User asks for a human", "User repeats the request"), TitleThreshold)
	require.GreaterOrEqual(t, textmatch.Similarity("用户要求转人工客服", "用户要求转人工"), TitleThreshold)
}

func TestBuildClusters(t *testing.T) {
	t.Parallel()
	action, risk := analyzer.TypeAction, analyzer.TypeRisk
	findings := []FindingRef{
		{Seq: 1, Idx: 0, Type: action, Category: "tool_error", Title: "Tool call returns an error", Severity: 2, Confidence: 0.9},
		{Seq: 1, Idx: 1, Type: risk, Category: "personal_data", Title: "Shows personal data", Severity: 4, Confidence: 0.9},
		{Seq: 2, Idx: 0, Type: action, Category: "tool_error", Title: "tool call returned an error", Severity: 4, Confidence: 0.5},
		{Seq: 2, Idx: 1, Type: action, Category: "tool_error", Title: "Retries a failing call unchanged", Severity: 3, Confidence: 0.9},
		// Same title, other category: another cluster.
		{Seq: 3, Idx: 0, Type: action, Category: "repetition", Title: "Tool call returns an error", Severity: 1, Confidence: 0.5},
		{Seq: 3, Idx: 1, Type: action, Category: "tool_error", Title: "Tool call returns an error", Severity: 2, Confidence: 0.9},
	}
	clusters := Build(findings, 4)
	require.Len(t, clusters, 4)
	var tool Cluster
	for i, c := range clusters {
		require.Equal(t, i, c.Idx)
		if i > 0 {
			require.GreaterOrEqual(t, clusters[i-1].PriorityScore, c.PriorityScore, "most urgent first")
		}
		if c.Category == "tool_error" && c.FindingCount == 3 {
			tool = c
		}
	}
	require.Equal(t, "Tool call returns an error", tool.Title, "the most frequent title")
	require.Equal(t, []int{1, 2, 3}, tool.ConversationSeqs)
	require.Equal(t, []string{"Tool call returns an error", "tool call returned an error"}, tool.Titles)
	require.InDelta(t, 0.75, tool.Prevalence, 1e-9)
	require.InDelta(t, 8.0/3, tool.Severity, 1e-9)
	require.InDelta(t, 2.3/3, tool.Confidence, 1e-9)
	score, parts := Priority(0.75, 8.0/3, 2.3/3)
	require.InDelta(t, score, tool.PriorityScore, 1e-9)
	require.Equal(t, parts, tool.Parts)
	require.InDelta(t, parts.PrevalenceTerm+parts.SeverityTerm+parts.ConfidenceTerm, tool.PriorityScore, 1e-9)
	require.Equal(t, PriorityFormula, tool.Parts.Formula)

	// Deterministic: the input order does not matter.
	for range 20 {
		shuffled := append([]FindingRef(nil), findings...)
		rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		require.Equal(t, clusters, Build(shuffled, 4))
	}
	require.Empty(t, Build(nil, 0))
}

func TestPriority(t *testing.T) {
	t.Parallel()
	score, parts := Priority(1, 5, 1)
	require.InDelta(t, 100.0, score, 1e-9)
	require.InDelta(t, 40.0, parts.PrevalenceTerm, 1e-9)
	score, _ = Priority(0, 1, 0)
	require.Zero(t, score)
	score, parts = Priority(0.04, 3, 0.5)
	require.InDelta(t, 8.0, parts.PrevalenceTerm, 1e-9)
	require.InDelta(t, 20.0, parts.SeverityTerm, 1e-9)
	require.InDelta(t, 10.0, parts.ConfidenceTerm, 1e-9)
	require.InDelta(t, 38.0, score, 1e-9)
}

// TestRuleNamesNeverJoin: two rules' own names are two issues however alike their
// words and descriptions ("Tool call returns an error", "Tool rejects the agent's
// call"), in either language; a model's wording still joins a rule's name.
func TestRuleNamesNeverJoin(t *testing.T) {
	t.Parallel()
	desc := "1 of 9 tool calls failed: book_reservation at turn 3 (“Error: payment amount does not add up”)."
	for _, titles := range [][2]string{
		{"Tool call returns an error", "Tool rejects the agent's call"},
		{"工具调用返回错误", "工具调用返回了错误"},
	} {
		var fs []FindingRef
		for i, title := range []string{titles[0], titles[1], titles[0], titles[1]} {
			fs = append(fs, FindingRef{Seq: i, Type: analyzer.TypeAction, Category: "tool_error", Title: title, Severity: 2, Confidence: 0.9, Description: desc, Named: true})
		}
		clusters := Build(fs, 4)
		require.Len(t, clusters, 2, titles)
		for _, c := range clusters {
			require.Equal(t, 2, c.ConversationCount)
			require.Len(t, c.Titles, 1)
		}
		// A model's "tool call returned an error" joins the rule's name.
		fs = append(fs, FindingRef{Seq: 4, Type: analyzer.TypeAction, Category: "tool_error", Title: "tool call returned an error", Severity: 2, Confidence: 0.9, Description: desc})
		require.Len(t, Build(fs, 5), 2, titles)
	}
}
