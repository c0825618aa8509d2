package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// clusterOfFindings stores one task with one cluster of findings, one per
// conversation, each with its quote, priority and severity, and returns the task's id
// and its owner.
func clusterOfFindings(t *testing.T, tx pgx.Tx, findings []clusterFinding) ([16]byte, int64) {
	t.Helper()
	ctx := context.Background()
	var owner int64
	require.NoError(t, tx.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('test', 'evidence') RETURNING id`).Scan(&owner))
	var task string
	require.NoError(t, tx.QueryRow(ctx, `INSERT INTO analysis_task (owner_user_id, title) VALUES ($1, 't') RETURNING id`, owner).Scan(&task))
	_, err := tx.Exec(ctx, `INSERT INTO task_cluster (task_id, owner_user_id, idx, type, category, title, conversation_seqs,
		finding_count, prevalence, severity, confidence, priority_score) VALUES ($1, $2, 0, 'ACTION', 'tool_error', 'c', '{1,2,3}', 3, 1, 3, 1, 50)`, task, owner)
	require.NoError(t, err)
	for i, f := range findings {
		seq := i + 1
		_, err := tx.Exec(ctx, `INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, message_count)
			VALUES ($1, $2, $3, $4, '[]', 0)`, task, owner, seq, fmt.Sprintf("c%d", seq))
		require.NoError(t, err)
		_, err = tx.Exec(ctx, `INSERT INTO task_finding (task_id, owner_user_id, conversation_seq, idx, type, category, title,
			severity, confidence, priority_score, evidence, cluster_idx)
			VALUES ($1, $2, $3, 0, 'ACTION', 'tool_error', 't', $6, 1, $4, jsonb_build_array(jsonb_build_object('turn', 1, 'quote', $5::text, 'verified', true)), 0)`,
			task, owner, seq, f.priority, f.quote, f.severity)
		require.NoError(t, err)
	}
	var taskID [16]byte
	require.NoError(t, tx.QueryRow(ctx, `SELECT $1::uuid`, task).Scan(&taskID))
	return taskID, owner
}

type clusterFinding struct {
	quote              string
	priority, severity int
}

// shownSeqs are the conversations whose findings the cluster shows as its evidence.
func shownSeqs(t *testing.T, tx pgx.Tx, taskID [16]byte, owner int64, perCluster int32) []int32 {
	t.Helper()
	ctx := context.Background()
	q := dbsqlc.New()
	_, err := q.SetClusterEvidence(ctx, tx, dbsqlc.SetClusterEvidenceParams{TaskID: taskID, OwnerUserID: owner, PerCluster: perCluster})
	require.NoError(t, err)
	rows, err := q.ListTaskClusterEvidence(ctx, tx, dbsqlc.ListTaskClusterEvidenceParams{TaskID: taskID, OwnerUserID: owner})
	require.NoError(t, err)
	var seqs []int32
	for _, r := range rows {
		seqs = append(seqs, r.ConversationSeq)
	}
	return seqs
}

// A cluster's evidence shows different quotes before repeats of one already shown,
// even when the repeats rank higher: reruns of one scenario quote the same words.
func TestClusterEvidencePrefersDistinctQuotes(t *testing.T) {
	t.Parallel()
	tx := dbtest.Tx(t)
	taskID, owner := clusterOfFindings(t, tx, []clusterFinding{{"same words", 90, 3}, {"same words", 80, 3}, {"other words", 10, 3}})
	require.Equal(t, []int32{1, 3}, shownSeqs(t, tx, taskID, owner, 2), "the best of the repeated quote, then the different one")
}

// A cluster's evidence and the examples its Action is written from are its clear
// cases: a finding two or more below the cluster's most severe one (a retry the tool
// refused, nothing changed, beside changes made without a yes) is left out, however
// few the others.
func TestClusterEvidenceShowsTheClearCases(t *testing.T) {
	t.Parallel()
	tx := dbtest.Tx(t)
	taskID, owner := clusterOfFindings(t, tx, []clusterFinding{{"changed", 80, 4}, {"nothing changed", 40, 2}, {"changed too", 60, 3}})
	require.Equal(t, []int32{1, 3}, shownSeqs(t, tx, taskID, owner, 3))
	rows, err := dbsqlc.New().ListClusterExamples(context.Background(), tx, dbsqlc.ListClusterExamplesParams{
		TaskID: taskID, OwnerUserID: owner, ClusterIdxs: []int32{0}, MaxRows: 3,
	})
	require.NoError(t, err)
	var seqs []int32
	for _, r := range rows {
		seqs = append(seqs, r.ConversationSeq)
	}
	require.Equal(t, []int32{1, 3}, seqs)
}

// A conversation already shown under a cluster ranked above is shown again only when
// a cluster has no other clear case: a PM reads each conversation once. The Action is
// written from the examples its card shows, in their order.
func TestClusterEvidenceShowsAConversationOnceInRankOrder(t *testing.T) {
	t.Parallel()
	tx := dbtest.Tx(t)
	ctx := context.Background()
	taskID, owner := clusterOfFindings(t, tx, []clusterFinding{{"first", 90, 3}, {"second", 50, 3}, {"third", 40, 3}})
	// Cluster 1 holds conversation 1 alone.
	_, err := tx.Exec(ctx, `INSERT INTO task_cluster (task_id, owner_user_id, idx, type, category, title, conversation_seqs,
		finding_count, prevalence, severity, confidence, priority_score) VALUES ($1, $2, 1, 'RISK', 'false_success_claim', 'd', '{1}', 1, 1, 3, 1, 90)`, taskID, owner)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `INSERT INTO task_finding (task_id, owner_user_id, conversation_seq, idx, type, category, title,
		severity, confidence, priority_score, evidence, cluster_idx)
		VALUES ($1, $2, 1, 1, 'RISK', 'false_success_claim', 'd', 3, 1, 90, '[{"turn": 1, "quote": "claim", "verified": true}]', 1)`, taskID, owner)
	require.NoError(t, err)
	q := dbsqlc.New()
	shown := func(order ...int32) map[int32][]int32 {
		_, err := q.SetClusterEvidence(ctx, tx, dbsqlc.SetClusterEvidenceParams{TaskID: taskID, OwnerUserID: owner, RankOrder: order, PerCluster: 2})
		require.NoError(t, err)
		rows, err := q.ListTaskClusterEvidence(ctx, tx, dbsqlc.ListTaskClusterEvidenceParams{TaskID: taskID, OwnerUserID: owner})
		require.NoError(t, err)
		out := map[int32][]int32{}
		for _, r := range rows {
			out[r.ClusterIdx] = append(out[r.ClusterIdx], r.ConversationSeq)
		}
		return out
	}
	require.Equal(t, map[int32][]int32{1: {1}, 0: {2, 3}}, shown(1, 0), "cluster 1 ranks first and shows conversation 1; cluster 0 shows its others")
	require.Equal(t, map[int32][]int32{0: {1, 2}, 1: {1}}, shown(0, 1), "ranked second, cluster 1 has no other case to show")

	shown(1, 0)
	rows, err := q.ListClusterExamples(ctx, tx, dbsqlc.ListClusterExamplesParams{TaskID: taskID, OwnerUserID: owner, ClusterIdxs: []int32{0}, MaxRows: 3})
	require.NoError(t, err)
	var seqs []int32
	for _, r := range rows {
		seqs = append(seqs, r.ConversationSeq)
	}
	require.Equal(t, []int32{2, 3, 1}, seqs, "the examples the card shows first, then the rest")
}

// A near-copy of a finding already shown (the same first quote, its exchange ending
// the same way: a rerun of one case) is never shown; the same first quote with
// another ending is another case, shown after the different quotes.
func TestClusterEvidenceLeavesOutNearCopies(t *testing.T) {
	t.Parallel()
	tx := dbtest.Tx(t)
	ctx := context.Background()
	taskID, owner := clusterOfFindings(t, tx, []clusterFinding{{"call()", 90, 3}, {"call()", 80, 3}, {"call()", 70, 3}})
	for seq, ending := range map[int]string{1: "We sell 11 shirts.", 2: "We sell 11 shirts!", 3: "Please sign in first."} {
		_, err := tx.Exec(ctx, `UPDATE task_finding SET evidence = evidence || jsonb_build_array(jsonb_build_object('turn', 3, 'quote', $3::text, 'verified', true))
			WHERE task_id = $1 AND owner_user_id = $2 AND conversation_seq = $4`, taskID, owner, ending, seq)
		require.NoError(t, err)
	}
	require.Equal(t, []int32{1, 3}, shownSeqs(t, tx, taskID, owner, 3), "conversation 2 ends as 1 does, but for a mark")
}
