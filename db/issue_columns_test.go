package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbtest"
)

// Migrating derives again, from the owner's word on the clusters, what the
// conversation list filters and sorts by for the conversations of clusters an owner
// marked expected or overruled, and rolling back derives it from the findings' own
// flags, as the earlier code reads it.
func TestIssueColumnsFollowTheOwnersWord(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.Isolated(t)
	ctx := context.Background()
	_, err := migrationsProvider(t, pool).DownTo(ctx, 22)
	require.NoError(t, err)

	var owner int64
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('local','ann') RETURNING id`).Scan(&owner))
	var task string
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO analysis_task (owner_user_id, title) VALUES ($1, 't') RETURNING id`, owner).Scan(&task))
	// Conversation 1 has a finding of a cluster the owner marked expected and one of an
	// issue; conversation 2 one of a cluster the policy called for and the owner
	// overruled; conversation 3 one of an issue nobody spoke on. The columns are as the
	// diagnoses stored them, from the findings' flags.
	_, err = pool.Exec(ctx, `INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, message_count, max_severity, finding_categories)
		VALUES ($1, $2, 1, 'c1', '[]', 0, 4, '{tone,tool_error}'), ($1, $2, 2, 'c2', '[]', 0, 0, '{}'), ($1, $2, 3, 'c3', '[]', 0, 5, '{unresolved}')`, task, owner)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO task_cluster (task_id, owner_user_id, idx, type, category, title, conversation_seqs,
		finding_count, prevalence, severity, confidence, priority_score, expected, expected_by, expected_reason, policy_overruled)
		VALUES ($1, $2, 0, 'ACTION', 'tone', 'Agent is curt', '{1}', 1, 0.3, 4, 0.9, 30, true, 'owner', 'Fine here', false),
		       ($1, $2, 1, 'ACTION', 'tool_error', 'Tool fails', '{1}', 1, 0.3, 2, 0.9, 50, false, NULL, '', false),
		       ($1, $2, 2, 'ACTION', 'refusal', 'Agent declines', '{2}', 1, 0.3, 3, 0.9, 40, false, NULL, 'It may answer', true),
		       ($1, $2, 3, 'ACTION', 'unresolved', 'User leaves', '{3}', 1, 0.3, 5, 0.9, 20, false, NULL, '', false)`, task, owner)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO task_finding (task_id, owner_user_id, conversation_seq, idx, type, category, title,
		severity, confidence, priority_score, expected, cluster_idx)
		VALUES ($1, $2, 1, 0, 'ACTION', 'tone', 'Agent is curt', 4, 0.9, 30, false, 0),
		       ($1, $2, 1, 1, 'ACTION', 'tool_error', 'Tool fails', 2, 0.9, 50, false, 1),
		       ($1, $2, 2, 0, 'ACTION', 'refusal', 'Agent declines', 3, 0.9, 40, true, 2),
		       ($1, $2, 3, 0, 'ACTION', 'unresolved', 'User leaves', 5, 0.9, 20, false, 3)`, task, owner)
	require.NoError(t, err)

	type columns struct {
		MaxSeverity int
		Categories  []string
	}
	read := func() []columns {
		var out []columns
		for seq := 1; seq <= 3; seq++ {
			var c columns
			require.NoError(t, pool.QueryRow(ctx, `SELECT max_severity, finding_categories FROM task_conversation WHERE task_id = $1 AND seq = $2`,
				task, seq).Scan(&c.MaxSeverity, &c.Categories))
			out = append(out, c)
		}
		return out
	}
	stored := read()

	_, err = migrationsProvider(t, pool).UpTo(ctx, 23)
	require.NoError(t, err)
	require.Equal(t, []columns{{2, []string{"tool_error"}}, {3, []string{"refusal"}}, {5, []string{"unresolved"}}}, read(),
		"the marked finding is not an issue, the overruled one is, the third conversation is as it was")

	_, err = migrationsProvider(t, pool).DownTo(ctx, 22)
	require.NoError(t, err)
	require.Equal(t, stored, read(), "rolled back, the findings' flags decide again")
}
