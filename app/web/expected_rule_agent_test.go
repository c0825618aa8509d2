package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
)

// TestExpectedRuleKeepsToItsAgent: a mark made on one agent's diagnosis marks that
// agent's later runs only — another agent's same issue stays an issue, with its Action
// — until the owner applies the rule to all their agents; the settings page shows each
// rule with its agent. Widening is the owner's alone, and is refused, changing nothing,
// where another agent's rule for the issue says the opposite.
func TestExpectedRuleKeepsToItsAgent(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	convs := loopSample(t)[:60]
	retail := b.diagnose(t, b.alice, "Retail agent", convs)
	before := taskReport(t, b.alice, retail)
	marked := firstActionCluster(t, before)
	require.Equal(t, http.StatusSeeOther, b.alice.PostForm(t, clusterPath(retail, marked.ClusterIdx, "expected"),
		url.Values{"reason": {"Our retail policy allows it"}}).StatusCode)
	issue := clusterOf(t, before, marked.ClusterIdx)

	airline := b.diagnose(t, b.alice, "Airline agent", convs)
	other := sameIssue(t, taskReport(t, b.alice, airline), issue)
	require.False(t, other.Expected, "another agent's runs are not marked")
	require.Positive(t, other.ActionRank, "and keep the Action")
	again := b.diagnose(t, b.alice, "Retail agent", convs)
	require.True(t, sameIssue(t, taskReport(t, b.alice, again), issue).Expected, "the agent's own later runs are")

	doc := parse(t, b.alice.Get(t, "/settings/expected"))
	rule := testid(doc, "expected-rule")
	require.Equal(t, 1, rule.Length())
	require.Equal(t, "For the agent Retail agent", strings.Join(strings.Fields(rule.Find(`[data-testid="rule-agent"]`).Text()), " "))
	ruleID := rule.AttrOr("data-rule-id", "")
	require.Equal(t, 1, rule.Find(`[data-testid="rule-widen"]`).Length())

	require.Equal(t, http.StatusNotFound, b.bob.PostForm(t, "/settings/expected/"+ruleID+"/widen", nil).StatusCode, "another owner's rule")
	require.Equal(t, http.StatusNotFound, b.alice.PostForm(t, "/settings/expected/0/widen", nil).StatusCode)
	req, err := http.NewRequest(http.MethodPost, b.url+"/settings/expected/"+ruleID+"/widen", nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusForbidden, b.alice.Send(t, req).StatusCode, "no CSRF token")

	// The airline agent says the opposite of the same issue: one rule cannot speak for both.
	_, err = b.pool.Exec(t.Context(), `INSERT INTO expected_rule (owner_user_id, agent_id, type, category, normal_title, title, expected)
		SELECT r.owner_user_id, t.agent_id, r.type, r.category, r.normal_title, r.title, NOT r.expected
		FROM expected_rule r, analysis_task t WHERE r.id = $1 AND t.id = $2`, ruleID, airline)
	require.NoError(t, err)
	resp := b.alice.PostForm(t, "/settings/expected/"+ruleID+"/widen", nil)
	require.Equal(t, http.StatusConflict, resp.StatusCode)
	require.Contains(t, authtest.Body(t, resp), "on another agent says the opposite")
	doc = parse(t, b.alice.Get(t, "/settings/expected"))
	require.Equal(t, "For the agent Retail agent", strings.Join(strings.Fields(doc.Find(`[data-rule-id="`+ruleID+`"] [data-testid="rule-agent"]`).Text()), " "), "nothing changed")
	require.Equal(t, 2, testid(doc, "expected-rule").Length())
	_, err = b.pool.Exec(t.Context(), `DELETE FROM expected_rule WHERE id <> $1`, ruleID)
	require.NoError(t, err)

	resp = b.alice.PostForm(t, "/settings/expected/"+ruleID+"/widen", nil)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	doc = parse(t, b.alice.Get(t, "/settings/expected"))
	require.Equal(t, "For all your agents", strings.TrimSpace(testid(doc, "rule-agent").Text()))
	require.Zero(t, testid(doc, "rule-widen").Length())
	widened := b.diagnose(t, b.alice, "Airline agent", convs)
	require.True(t, sameIssue(t, taskReport(t, b.alice, widened), issue).Expected, "now every agent's runs are marked")
}
