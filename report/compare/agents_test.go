package compare_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/report/compare"
)

func TestDifferentAgentsByTheirSystemPrompts(t *testing.T) {
	t.Parallel()
	airline := "You are an airline agent. You can book, modify or cancel flight reservations. Basic economy flights cannot be modified. Ask the user to confirm before you change a reservation."
	edited := airline + " Always answer in one short paragraph."
	retail := "You are a retail agent. You can cancel or modify pending orders, return or exchange delivered items. Authenticate the user by email or by name and zip code first."
	require.False(t, compare.DifferentAgents(airline, airline))
	require.False(t, compare.DifferentAgents(airline, edited), "a prompt edited between two runs")
	require.True(t, compare.DifferentAgents(airline, retail))
	require.False(t, compare.DifferentAgents(airline, ""), "no prompt: cannot tell")
	require.True(t, compare.DifferentAgents("你是航空公司的客服，可以改签或退票。", "你是电商平台的客服，处理订单退货和换货。"+strings.Repeat("物流查询", 3)))
}

func TestSystemPromptJoinsTheSystemMessages(t *testing.T) {
	t.Parallel()
	p, err := compare.SystemPrompt([]byte(`[{"role":"system","content":"Policy."},{"role":"user","content":"Hi"},{"role":"system","content":"More policy."}]`))
	require.NoError(t, err)
	require.Equal(t, "Policy.\nMore policy.", p)
	p, err = compare.SystemPrompt([]byte(`[{"role":"user","content":"Hi"}]`))
	require.NoError(t, err)
	require.Empty(t, p)
	_, err = compare.SystemPrompt([]byte(`{`))
	require.Error(t, err)
}
