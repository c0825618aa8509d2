package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbtest"
)

// TestExpectedRulesKeepToTheirAgent: migration 45 gives each stored rule the agent of
// the diagnosis it was made on, and one whose diagnosis is gone stays for all agents;
// after it one issue may have a rule per agent and one for all, but never two for one
// agent; rolled back, one rule per issue is left, the one for all agents first.
func TestExpectedRulesKeepToTheirAgent(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.Isolated(t)
	ctx := context.Background()
	provider := migrationsProvider(t, pool)
	_, err := provider.DownTo(ctx, 44)
	require.NoError(t, err)

	var owner, retail, airline int64
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('local', 'alice') RETURNING id`).Scan(&owner))
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO agent (owner_user_id, name) VALUES ($1, 'Retail') RETURNING id`, owner).Scan(&retail))
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO agent (owner_user_id, name) VALUES ($1, 'Airline') RETURNING id`, owner).Scan(&airline))
	var task string
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO analysis_task (owner_user_id, title, agent_id) VALUES ($1, 't', $2) RETURNING id`, owner, retail).Scan(&task))
	_, err = pool.Exec(ctx, `INSERT INTO expected_rule (owner_user_id, type, category, normal_title, title, source_task_id) VALUES
		($1, 'RISK', 'unconfirmed_write', 'a', 'A', $2), ($1, 'ACTION', 'tool_error', 'b', 'B', NULL)`, owner, task)
	require.NoError(t, err)

	_, err = provider.UpByOne(ctx)
	require.NoError(t, err)
	agentOf := map[string]*int64{}
	rows, err := pool.Query(ctx, `SELECT normal_title, agent_id FROM expected_rule`)
	require.NoError(t, err)
	for rows.Next() {
		var title string
		var agent *int64
		require.NoError(t, rows.Scan(&title, &agent))
		agentOf[title] = agent
	}
	require.NoError(t, rows.Err())
	require.NotNil(t, agentOf["a"])
	require.Equal(t, retail, *agentOf["a"], "the agent of the diagnosis it was made on")
	require.Nil(t, agentOf["b"], "its diagnosis is gone: all agents, as before")

	insert := `INSERT INTO expected_rule (owner_user_id, agent_id, type, category, normal_title, title) VALUES ($1, $2, 'RISK', 'unconfirmed_write', 'a', 'A')`
	_, err = pool.Exec(ctx, insert, owner, airline)
	require.NoError(t, err, "another agent's rule for the same issue")
	_, err = pool.Exec(ctx, insert, owner, nil)
	require.NoError(t, err, "and one for all agents")
	_, err = pool.Exec(ctx, insert, owner, retail)
	require.Error(t, err, "never two for one agent")
	_, err = pool.Exec(ctx, insert, owner, nil)
	require.Error(t, err, "nor two for all agents")

	_, err = provider.DownTo(ctx, 44)
	require.NoError(t, err)
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM expected_rule WHERE normal_title = 'a'`).Scan(&n))
	require.Equal(t, 1, n, "one rule per issue without agents")
	_, err = provider.Up(ctx)
	require.NoError(t, err)
}
