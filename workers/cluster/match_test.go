package cluster_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/cluster"
)

func TestTitleMatch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b  string
		alike bool
	}{
		{"Tool call returns an error", "TOOL CALL RETURNS AN ERROR", true},
		{"Tool call returns an error", "tool call returned an error", true},
		{"Booking 1001 changed without the agent confirming", "Agent did not confirm booking 1002", true},
		{"用户要求转人工客服", "用户要求转人工", true},
		{"User asks for a human", "User repeats the request", false},
		{"Agent repeats the same message", "Conversation is unusually long", false},
	} {
		score, alike := cluster.TitleMatch(c.a, c.b)
		require.Equal(t, c.alike, alike, "%q vs %q (%.2f)", c.a, c.b, score)
		require.GreaterOrEqual(t, score, 0.0)
		require.LessOrEqual(t, score, 1.0)
	}
	score, _ := cluster.TitleMatch("Tool call returns an error", "tool call returns an error")
	require.Equal(t, 1.0, score, "folded equals score 1")
}
