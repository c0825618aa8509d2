package compare_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/report/compare"
)

func diagnosis(id string, analyzed int, clusters ...report.Cluster) report.Report {
	for i := range clusters {
		clusters[i].Idx = i
		clusters[i].Prevalence = float64(clusters[i].Conversations) / float64(analyzed)
	}
	return report.Report{
		Task:       report.Task{ID: id, Title: "Support bot", Status: "completed", Terminal: true},
		Analysis:   report.Analysis{Analyzer: "offline", Offline: true},
		Population: report.Population{Uploaded: analyzed, Kept: analyzed, Analysed: analyzed},
		Clusters:   clusters,
	}
}

func issue(typ, category, title string, conversations int) report.Cluster {
	return report.Cluster{Type: typ, Category: category, Title: title, Conversations: conversations}
}

func byTitle(c compare.Comparison) map[string]compare.Cluster {
	out := map[string]compare.Cluster{}
	for _, cl := range c.Clusters {
		out[cl.Title] = cl
	}
	return out
}

func TestCompareMatchesAndTells(t *testing.T) {
	t.Parallel()
	baseline := diagnosis("b", 200,
		issue("ACTION", "tool_error", "Tool call returns an error", 30),
		issue("ACTION", "repetition", "Agent repeats the same message", 13),
		issue("RISK", "unconfirmed_write", "Agent changes data without the user's explicit confirmation", 24),
		issue("ACTION", "user_repeats", "User has to repeat their request", 12),
		issue("ACTION", "refusal", "Agent declines the user's request", 9),
	)
	current := diagnosis("c", 200,
		issue("ACTION", "tool_error", "Tool calls returned errors", 10),     // near-duplicate title, fewer
		issue("ACTION", "repetition", "agent repeats the same message", 14), // folded equal, about as many
		issue("RISK", "unconfirmed_write", "Agent changes data without the user's explicit confirmation", 60),
		issue("ACTION", "knowledge_gap", "Agent lacks the information to answer", 8), // new
		issue("ACTION", "user_repeats", "User rephrases after a wrong answer", 3),    // another issue of the category
		issue("ACTION", "refusal_x", "Agent declines the user's request", 4),         // same title, other category: no match
	)
	c := compare.Compare(baseline, current)
	got := byTitle(c)

	errs := got["Tool calls returned errors"]
	require.Equal(t, compare.Better, errs.Change, "30 → 10 of 200 is significant")
	require.Equal(t, compare.Side{Conversations: 30, Share: 0.15}, errs.Baseline)
	require.Equal(t, compare.Side{Conversations: 10, Share: 0.05}, errs.Current)
	require.Less(t, errs.PValue, 0.001)

	rep := got["agent repeats the same message"]
	require.Equal(t, compare.Same, rep.Change)
	require.Equal(t, 13, rep.Baseline.Conversations)
	require.Greater(t, rep.PValue, 0.5)

	require.Equal(t, compare.Worse, got["Agent changes data without the user's explicit confirmation"].Change)
	require.Equal(t, compare.New, got["Agent lacks the information to answer"].Change)
	require.Equal(t, compare.Side{}, got["Agent lacks the information to answer"].Baseline)

	resolved := []string{}
	for _, cl := range c.Clusters {
		if cl.Change == compare.Resolved {
			resolved = append(resolved, cl.Title)
			require.Equal(t, compare.Side{}, cl.Current)
		}
	}
	require.ElementsMatch(t, []string{"User has to repeat their request", "Agent declines the user's request"}, resolved)
	require.Len(t, c.Clusters, 8, "clusters match within their type and category only")

	var order []compare.Change
	for _, cl := range c.Clusters {
		order = append(order, cl.Change)
	}
	require.Equal(t, []compare.Change{compare.Worse, compare.New, compare.New, compare.New, compare.Resolved, compare.Resolved, compare.Better, compare.Same}, order,
		"regressions first")
	require.Len(t, c.Regressions(), 2, "the worse one and the significant new one (8 of 200); the new ones of 3 and 4 are not significant")
}

// TestSmallCountsNeedSignificance: 2 → 5 of 50 is more, but not significantly.
func TestSmallCountsNeedSignificance(t *testing.T) {
	t.Parallel()
	c := compare.Compare(diagnosis("b", 50, issue("ACTION", "x", "Long chats", 2)), diagnosis("c", 50, issue("ACTION", "x", "Long chats", 5)))
	require.Equal(t, compare.Same, c.Clusters[0].Change)
	require.Greater(t, c.Clusters[0].PValue, 0.05)
	c = compare.Compare(diagnosis("b", 50, issue("ACTION", "x", "Long chats", 1)), diagnosis("c", 50, issue("ACTION", "x", "Long chats", 12)))
	require.Equal(t, compare.Worse, c.Clusters[0].Change)
	require.Less(t, c.Clusters[0].PValue, 0.05, "Fisher's exact test on 1 of 50 against 12 of 50")
}

// TestExpectedBehaviorIsNotCompared: behavior expected in every run that has it is
// left out. An issue expected in one run and not in the other says so, with both runs'
// conversations, instead of being compared as an issue of both, dropped, or called new
// or resolved; and it is no regression.
func TestExpectedBehaviorIsNotCompared(t *testing.T) {
	t.Parallel()
	refusals := issue("ACTION", "refusal", "Agent declines the user's request", 20)
	expected := refusals
	expected.Expected = true
	handoffs := issue("ACTION", "human_handoff", "Agent hands off as its policy says", 10)
	handoffs.Expected = true
	c := compare.Compare(diagnosis("b", 100, expected, handoffs), diagnosis("c", 100, expected))
	require.Empty(t, c.Clusters, "expected in both, and expected in the baseline alone")
	c = compare.Compare(diagnosis("b", 100), diagnosis("c", 100, handoffs))
	require.Empty(t, c.Clusters, "expected in the current run alone")

	c = compare.Compare(diagnosis("b", 100, refusals), diagnosis("c", 100, expected))
	require.Len(t, c.Clusters, 1, "marked expected since the baseline")
	require.Equal(t, compare.NowExpected, c.Clusters[0].Change)
	require.Equal(t, 20, c.Clusters[0].Baseline.Conversations)
	require.Equal(t, 20, c.Clusters[0].Current.Conversations)

	more := refusals
	more.Conversations = 60
	c = compare.Compare(diagnosis("b", 100, expected), diagnosis("c", 100, more))
	require.Len(t, c.Clusters, 1, "an issue since the baseline, where it was expected")
	require.Equal(t, compare.NowIssue, c.Clusters[0].Change, "not worse: the baseline did not count it as an issue")
	require.Empty(t, c.Regressions())
	require.Equal(t, 1, c.Count(compare.NowIssue))
}

func TestEachClusterMatchesOnce(t *testing.T) {
	t.Parallel()
	c := compare.Compare(
		diagnosis("b", 100, issue("ACTION", "tool_error", "Tool call returns an error", 20)),
		diagnosis("c", 100, issue("ACTION", "tool_error", "Tool call returned an error", 5), issue("ACTION", "tool_error", "Tool call returns an error", 19)),
	)
	got := byTitle(c)
	require.Equal(t, compare.Same, got["Tool call returns an error"].Change, "the exact title is the better match")
	require.Equal(t, compare.New, got["Tool call returned an error"].Change)
}

func TestRunsSideBySide(t *testing.T) {
	t.Parallel()
	b := diagnosis("b", 100)
	b.Population.Labelled = report.Labelled{Failed: 30, Succeeded: 70, Field: "metadata.success"}
	b.Drivers = []report.Driver{{Kind: "tool_error", Feature: "book", QValue: 0.01}, {Kind: "tool", Feature: "search", QValue: 0.02}}
	cur := diagnosis("c", 90)
	cur.Population.Labelled = report.Labelled{Failed: 18, Succeeded: 72, Field: "metadata.success"}
	cur.Drivers = []report.Driver{{Kind: "tool_error", Feature: "book", QValue: 0.04}, {Kind: "length", Feature: "long", QValue: 0.03}}
	c := compare.Compare(b, cur)
	require.InDelta(t, 0.3, *c.Baseline.FailureRate, 1e-9)
	require.InDelta(t, 0.2, *c.Current.FailureRate, 1e-9)
	require.Equal(t, 90, c.Current.Population.Analysed)
	pairs := c.Drivers()
	require.Len(t, pairs, 3)
	require.Equal(t, "book", pairs[0].Feature)
	require.NotNil(t, pairs[0].Baseline)
	require.NotNil(t, pairs[0].Current)
	require.Equal(t, "long", pairs[1].Feature)
	require.Nil(t, pairs[1].Baseline)
	require.Equal(t, "search", pairs[2].Feature)
	require.Nil(t, pairs[2].Current)
	require.Nil(t, compare.Compare(diagnosis("b", 10), diagnosis("c", 10)).Current.FailureRate, "null without labels")
}

// TestJSONShape pins compare.json's shape, as docs/compare-json.md describes it.
func TestJSONShape(t *testing.T) {
	t.Parallel()
	c := compare.Compare(diagnosis("b", 100, issue("ACTION", "x", "Long chats", 10)), diagnosis("c", 100, issue("ACTION", "x", "Long chats", 12)))
	raw, err := json.Marshal(c)
	require.NoError(t, err)
	var shape map[string]any
	require.NoError(t, json.Unmarshal(raw, &shape))
	require.ElementsMatch(t, []string{"baseline", "current", "clusters"}, keys(shape))
	run := shape["baseline"].(map[string]any)
	require.ElementsMatch(t, []string{"id", "title", "status", "created_at", "finished_at", "rerun_of", "agent", "analyzer", "model",
		"population", "failure_rate", "drivers"}, keys(run))
	cl := shape["clusters"].([]any)[0].(map[string]any)
	require.ElementsMatch(t, []string{"type", "category", "title", "baseline", "current", "change", "p_value"}, keys(cl))
	require.ElementsMatch(t, []string{"conversations", "share"}, keys(cl["current"].(map[string]any)))
	require.Equal(t, "same", cl["change"])
	empty, err := json.Marshal(compare.Compare(diagnosis("b", 10), diagnosis("c", 10)))
	require.NoError(t, err)
	require.Contains(t, string(empty), `"clusters":[]`, "an array, never null")
	require.Contains(t, string(empty), `"drivers":[]`)
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
