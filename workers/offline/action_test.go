package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

func brief(category, title string) analyzer.ClusterBrief {
	return analyzer.ClusterBrief{
		Type: analyzer.TypeRisk, Category: category, Title: title,
		Descriptions:      []string{"book_reservation failed at turn 22, yet at turn 23 the agent told the user it had succeeded."},
		ConversationCount: 23, AnalysedCount: 92, Severity: 5, Confidence: 0.7, PriorityScore: 70,
		Examples: []analyzer.Example{{ConversationID: "airline-task00-trial1", Seq: 2, Turn: 23, Quote: "Your reservation has been successfully booked.", FindingTitle: title}},
	}
}

func TestWriteAction(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	r, err := a.WriteAction(context.Background(), brief("false_success_claim", "Agent claims success after a failed tool call"))
	require.NoError(t, err)
	require.Equal(t, analyzer.PassFirst, r.Pass)
	require.Equal(t, analyzer.Usage{}, r.Usage)
	act := r.Value
	require.Equal(t, "Make the agent check tool results before confirming success", act.Title)
	require.Equal(t, "prompt", act.FixLocation)
	require.Equal(t, "Agent claims success after a failed tool call in 23 of 92 analysed conversations (25%). "+
		"book_reservation failed at turn 22, yet at turn 23 the agent told the user it had succeeded. "+
		"Example: conversation airline-task00-trial1, turn 23, “Your reservation has been successfully booked.”.", act.Problem)
	require.Len(t, act.Recommendation, 3)
	require.Contains(t, act.Recommendation[0], "Add to the system prompt")
	require.Equal(t, "Add a regression test from conversation airline-task00-trial1, turn 23: replay the conversation up to that turn and assert the corrected behaviour.",
		act.Recommendation[2])
	require.True(t, strings.HasSuffix(act.ExpectedImpact, "This affects 23 of 92 analysed conversations (25%)."))
}

func TestWriteActionEveryCategory(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	titlesSeen := map[string]bool{}
	for _, cat := range analyzer.Categories {
		for _, title := range []string{"Some cluster", ruleAbusiveAgent.spec().title, ruleRepeatedMessage.spec().title, ruleHumanIgnored.spec().title} {
			r, err := a.WriteAction(context.Background(), brief(cat, title))
			require.NoError(t, err)
			act := r.Value
			require.NotEmpty(t, act.Title, cat)
			require.Contains(t, analyzer.FixLocations, act.FixLocation, cat)
			require.NotEmpty(t, act.Problem)
			require.NotEmpty(t, act.ExpectedImpact)
			require.GreaterOrEqual(t, len(act.Recommendation), 2, cat)
			for _, step := range act.Recommendation {
				require.NotEmpty(t, step)
			}
			titlesSeen[act.Title] = true
		}
	}
	require.Greater(t, len(titlesSeen), 15, "categories get their own Action titles")

	// Variants of one category are told apart by the cluster title.
	looping, _ := a.WriteAction(context.Background(), brief("repetition", ruleRetryFailing.spec().title))
	echo, _ := a.WriteAction(context.Background(), brief("repetition", ruleRepeatedMessage.spec().title))
	require.NotEqual(t, looping.Value.Title, echo.Value.Title)
}

func TestWriteActionWithoutExamplesOrPopulation(t *testing.T) {
	t.Parallel()
	b := analyzer.ClusterBrief{Type: analyzer.TypeAction, Category: "tool_error", Title: "Tool call returns an error", ConversationCount: 4}
	r, err := New(Options{}).WriteAction(context.Background(), b)
	require.NoError(t, err)
	require.Equal(t, "Tool call returns an error in 4 conversations.", r.Value.Problem)
	require.Contains(t, r.Value.Recommendation[0], "the examples of this cluster")
	require.Len(t, r.Value.Recommendation, 3, "no regression-test step without an example")
}

func TestWriteActionHonoursContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(Options{}).WriteAction(ctx, brief("tool_error", "x"))
	require.ErrorIs(t, err, context.Canceled)
}
