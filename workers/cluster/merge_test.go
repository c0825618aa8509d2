package cluster

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

func TestNearDuplicateTitlesMerge(t *testing.T) {
	t.Parallel()
	action := analyzer.TypeAction
	var findings []FindingRef
	// Four ways a model titles two problems, each with an id of the conversation in it.
	titles := []string{
		"Agent did not confirm booking %d before changing it",
		"Booking %d changed without the agent confirming",
		"Tool get_order_%d returns an error",
		"Error returned by tool get_order_%d",
	}
	for seq := 1; seq <= 40; seq++ {
		category := "unconfirmed_write"
		if seq%4 >= 2 {
			category = "tool_error"
		}
		findings = append(findings, FindingRef{
			Seq: seq, Type: action, Category: category, Title: fmt.Sprintf(titles[seq%4], 1000+seq),
			Severity: 3, Confidence: 0.8,
		})
	}
	clusters := Build(findings, 40)
	require.Len(t, clusters, 2, "one cluster per problem, not one per wording or id")
	for _, c := range clusters {
		require.Equal(t, 20, c.ConversationCount)
	}

	// Descriptions that say the same merge titles that do not.
	byDesc := Build([]FindingRef{
		{Seq: 1, Type: action, Category: "other", Title: "Slow answer", Description: "The agent took many turns to look up the order status the user asked for."},
		{Seq: 2, Type: action, Category: "other", Title: "Order lookup detour", Description: "The agent took many turns to look up the order status the user had asked for."},
		{Seq: 3, Type: action, Category: "other", Title: "Wrong refund amount", Description: "The refund the agent promised differs from what the tool returned."},
	}, 3)
	require.Len(t, byDesc, 2)

	// Chinese titles without spaces merge by their character pairs.
	zh := Build([]FindingRef{
		{Seq: 1, Type: action, Category: "human_handoff", Title: "用户要求转人工但未转接"},
		{Seq: 2, Type: action, Category: "human_handoff", Title: "用户多次要求转人工未被转接"},
		{Seq: 3, Type: action, Category: "human_handoff", Title: "退款金额计算错误"},
	}, 3)
	require.Len(t, zh, 2)
}

func TestExpectedClustersApart(t *testing.T) {
	t.Parallel()
	action := analyzer.TypeAction
	clusters := Build([]FindingRef{
		{Seq: 1, Type: action, Category: "refusal", Title: "Agent declines the request", Severity: 2, Confidence: 0.6},
		{Seq: 2, Type: action, Category: "refusal", Title: "Agent declines the request", Severity: 1, Confidence: 0.7, Expected: true},
		{Seq: 3, Type: action, Category: "refusal", Title: "Agent declines the request", Severity: 1, Confidence: 0.7, Expected: true},
	}, 3)
	require.Len(t, clusters, 2)
	var expected Cluster
	for _, c := range clusters {
		if c.Expected {
			expected = c
		}
	}
	require.Equal(t, []int{2, 3}, expected.ConversationSeqs)
	for _, c := range SelectCandidates(clusters) {
		require.False(t, c.Expected, "expected behaviour is never an Action")
	}
}

func TestDistinctProblemsStayApart(t *testing.T) {
	t.Parallel()
	action := analyzer.TypeAction
	titles := map[string][]string{
		"repetition":    {"Agent repeats the same message", "Agent retries a failing tool call unchanged", "Agent repeats a lookup it already made"},
		"tool_error":    {"Tool call returns an error", "Tool result does not match the requested change"},
		"unresolved":    {"Conversation ends without a reply to the user", "User leaves without the request being completed"},
		"human_handoff": {"Conversation is handed off to a human agent", "User asks for a human but is not transferred"},
	}
	var findings []FindingRef
	seq := 0
	for category, ts := range titles {
		for _, title := range ts {
			seq++
			findings = append(findings, FindingRef{Seq: seq, Type: action, Category: category, Title: title, Severity: 2, Confidence: 0.8})
		}
	}
	require.Len(t, Build(findings, seq), seq)
}

// Descriptions that share most words but say opposite things, one negated outside its
// quotes, stay apart; a negation inside a quote of the conversation does not count.
func TestOppositeDescriptionsStayApart(t *testing.T) {
	t.Parallel()
	action := analyzer.TypeAction
	clusters := Build([]FindingRef{
		{Seq: 1, Type: action, Category: "human_handoff", Title: "User asks for a human but is not transferred",
			Description: "At turn 16 the user asks for a person (“Yes, please transfer me to a human agent.”), but the conversation is never handed off."},
		{Seq: 2, Type: action, Category: "human_handoff", Title: "Conversation is handed off to a human agent",
			Description: "The agent hands the conversation to a human at turn 11. The user had asked for one at turn 10: “Yes, please connect me with a human agent.”."},
		{Seq: 3, Type: action, Category: "human_handoff", Title: "Handed to a person",
			Description: "The agent hands the conversation to a human at turn 8. The user had asked for one at turn 7: “No, I do not want a refund, connect me with a human.”."},
	}, 3)
	require.Len(t, clusters, 2, "the handoffs merge, the one never handed off stays apart")
	for _, c := range clusters {
		if c.ConversationCount == 1 {
			require.Equal(t, "User asks for a human but is not transferred", c.Title)
		}
	}
}

func TestNegated(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"User asks for a human but is not transferred":                     true,
		"the conversation is never handed off":                             true,
		"Booking changed without the agent confirming":                     true,
		"The agent doesn't confirm":                                        true,
		"用户要求转人工但未转接":                                                      true,
		"The agent hands the conversation to a human":                      false,
		`The user wrote “I do not want this” and the agent hands it over.`: false,
		`The tool returned "not found" and the agent retried.`:             false,
		"The user is a no-show at the gate":                                false,
		"Order no. 5 is late":                                              false,
		"用户询问未来的航班":                                                        false,
		"两个订单不同":                                                           false,
		`A 5" screen never arrived`:                                        true,
		"“It never came and the agent does not answer":                     true,
		"No reply reaches the user":                                        true,
	} {
		require.Equal(t, want, negated(s), s)
	}
}

// Titles that differ only by a negation stay apart even when their bigrams are alike
// enough to group them; the same title stays one cluster whatever its descriptions.
func TestTitlesThatDifferByANegationStayApart(t *testing.T) {
	t.Parallel()
	action := analyzer.TypeAction
	require.Len(t, Build([]FindingRef{
		{Seq: 1, Type: action, Category: "human_handoff", Title: "User is transferred to a human"},
		{Seq: 2, Type: action, Category: "human_handoff", Title: "User is not transferred to a human"},
		{Seq: 3, Type: action, Category: "human_handoff", Title: "用户要求转人工并已转接"},
		{Seq: 4, Type: action, Category: "human_handoff", Title: "用户要求转人工但未转接"},
	}, 4), 4)
	require.Len(t, Build([]FindingRef{
		{Seq: 1, Type: action, Category: "other", Title: "Booking change", Description: "The agent confirms the booking change with the user before making it."},
		{Seq: 2, Type: action, Category: "other", Title: "Booking change", Description: "The agent does not confirm the booking change with the user before making it."},
	}, 2), 1, "the same title is the same cluster whatever the descriptions")
}
