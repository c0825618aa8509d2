package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbtest"
)

// Rolling back the owner's "not expected" leaves each overruled cluster and rule to the
// policy: without the columns, such a rule would read as an expected one and hide the
// issue. The owner's own marks of expected behaviour are kept, and the Actions' ranks
// close over the one that leaves.
func TestRollingBackNotExpectedLeavesItToThePolicy(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.Isolated(t)
	ctx := context.Background()
	var owner int64
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('local','ann') RETURNING id`).Scan(&owner))
	var task string
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO analysis_task (owner_user_id, title) VALUES ($1, 't') RETURNING id`, owner).Scan(&task))
	_, err := pool.Exec(ctx, `INSERT INTO task_cluster (task_id, owner_user_id, idx, type, category, title, conversation_seqs,
		finding_count, prevalence, severity, confidence, priority_score, expected, expected_by, expected_reason, policy_overruled)
		VALUES ($1, $2, 0, 'ACTION', 'refusal', 'Agent declines', '{1}', 1, 0.5, 3, 0.9, 40, false, NULL, 'It may answer', true),
		       ($1, $2, 1, 'ACTION', 'tone', 'Agent is curt', '{2}', 1, 0.5, 3, 0.9, 30, true, 'owner', 'Fine here', false),
		       ($1, $2, 2, 'ACTION', 'tool_error', 'Tool fails', '{3}', 1, 0.5, 3, 0.9, 50, false, NULL, '', false),
		       ($1, $2, 3, 'ACTION', 'unresolved', 'User leaves', '{4}', 1, 0.5, 3, 0.9, 20, false, NULL, '', false)`, task, owner)
	require.NoError(t, err)
	// A later run wrote the overruled issue an Action, ranked between two others.
	_, err = pool.Exec(ctx, `INSERT INTO task_action (task_id, owner_user_id, candidate_index, cluster_idx, status, rank)
		VALUES ($1, $2, 0, 2, 'done', 1), ($1, $2, 1, 0, 'done', 2), ($1, $2, 2, 3, 'done', 3)`, task, owner)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO expected_rule (owner_user_id, type, category, normal_title, title, expected)
		VALUES ($1, 'ACTION', 'refusal', 'agent declines', 'Agent declines', false),
		       ($1, 'ACTION', 'tone', 'agent is curt', 'Agent is curt', true)`, owner)
	require.NoError(t, err)

	_, err = migrationsProvider(t, pool).DownTo(ctx, 21)
	require.NoError(t, err)

	var rules []string
	rows, err := pool.Query(ctx, `SELECT title FROM expected_rule ORDER BY id`)
	require.NoError(t, err)
	for rows.Next() {
		var title string
		require.NoError(t, rows.Scan(&title))
		rules = append(rules, title)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"Agent is curt"}, rules, "the not-expected rule is gone, the expected one kept")
	type mark struct {
		expected bool
		by       *string
		reason   string
	}
	var got [2]mark
	for i := range got {
		require.NoError(t, pool.QueryRow(ctx, `SELECT expected, expected_by, expected_reason FROM task_cluster WHERE task_id = $1 AND idx = $2`,
			task, i).Scan(&got[i].expected, &got[i].by, &got[i].reason))
	}
	require.True(t, got[0].expected, "the overruled cluster is the policy's again")
	require.Equal(t, "policy", *got[0].by)
	require.Empty(t, got[0].reason, "the policy's sentence is its reason, as the report reads it")
	require.True(t, got[1].expected)
	require.Equal(t, "owner", *got[1].by)
	require.Equal(t, "Fine here", got[1].reason, "the owner's mark is kept")

	ranks := map[int]*int{}
	rows, err = pool.Query(ctx, `SELECT cluster_idx, rank FROM task_action WHERE task_id = $1`, task)
	require.NoError(t, err)
	for rows.Next() {
		var idx int
		var rank *int
		require.NoError(t, rows.Scan(&idx, &rank))
		ranks[idx] = rank
	}
	require.NoError(t, rows.Err())
	require.Nil(t, ranks[0], "the Action of the issue the policy calls for again leaves the ranking")
	require.Equal(t, 1, *ranks[2])
	require.Equal(t, 2, *ranks[3], "and the others close the gap")
}
