package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// A cluster's evidence shows different quotes before repeats of one already shown,
// even when the repeats rank higher: reruns of one scenario quote the same words.
func TestClusterEvidencePrefersDistinctQuotes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := dbtest.Tx(t)
	var owner int64
	require.NoError(t, tx.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('test', 'evidence') RETURNING id`).Scan(&owner))
	var task string
	require.NoError(t, tx.QueryRow(ctx, `INSERT INTO analysis_task (owner_user_id, title) VALUES ($1, 't') RETURNING id`, owner).Scan(&task))
	_, err := tx.Exec(ctx, `INSERT INTO task_cluster (task_id, owner_user_id, idx, type, category, title, conversation_seqs,
		finding_count, prevalence, severity, confidence, priority_score) VALUES ($1, $2, 0, 'ACTION', 'tool_error', 'c', '{1,2,3}', 3, 1, 3, 1, 50)`, task, owner)
	require.NoError(t, err)
	quotes := []struct {
		quote    string
		priority int
	}{{"same words", 90}, {"same words", 80}, {"other words", 10}}
	for i, q := range quotes {
		seq := i + 1
		_, err := tx.Exec(ctx, `INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, message_count)
			VALUES ($1, $2, $3, $4, '[]', 0)`, task, owner, seq, fmt.Sprintf("c%d", seq))
		require.NoError(t, err)
		_, err = tx.Exec(ctx, `INSERT INTO task_finding (task_id, owner_user_id, conversation_seq, idx, type, category, title,
			severity, confidence, priority_score, evidence, cluster_idx)
			VALUES ($1, $2, $3, 0, 'ACTION', 'tool_error', 't', 3, 1, $4, jsonb_build_array(jsonb_build_object('turn', 1, 'quote', $5::text, 'verified', true)), 0)`,
			task, owner, seq, q.priority, q.quote)
		require.NoError(t, err)
	}
	var taskID [16]byte
	require.NoError(t, tx.QueryRow(ctx, `SELECT $1::uuid`, task).Scan(&taskID))
	q := dbsqlc.New()
	_, err = q.SetClusterEvidence(ctx, tx, dbsqlc.SetClusterEvidenceParams{TaskID: taskID, OwnerUserID: owner, PerCluster: 2})
	require.NoError(t, err)
	rows, err := q.ListTaskClusterEvidence(ctx, tx, dbsqlc.ListTaskClusterEvidenceParams{TaskID: taskID, OwnerUserID: owner})
	require.NoError(t, err)
	require.Len(t, rows, 2)
	require.Equal(t, []int32{1, 3}, []int32{rows[0].ConversationSeq, rows[1].ConversationSeq},
		"the best of the repeated quote, then the different one")
}
