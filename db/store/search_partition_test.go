package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
)

// While another owner's quality pass writes its search documents they wait in the
// pending list of their words' index, and while that list is long a search of the
// index is planned away from it, to check every document of its task. The documents
// are kept in partitions by task, each with its own index: a task whose documents are
// in another partition is searched by its index whatever the other pass has left
// pending.
func TestSearchIsNotPlannedOnAnotherTasksPendingDocuments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, rec := recordingPool(t, "SearchConversationSeqs")

	var owner int64
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('test', 'search-partitions') RETURNING id`).Scan(&owner))
	ours := uuid.New()
	theirs := uuid.New()
	for hashPartition(t, pool, theirs) == hashPartition(t, pool, ours) {
		theirs = uuid.New()
	}
	// The other pass's documents are left pending as a pass leaves them until its
	// merge: no autovacuum of their partition, no cleanup by size while they are written.
	_, err := pool.Exec(ctx, `ALTER TABLE `+pgx.Identifier{fmt.Sprintf("task_search_%d", hashPartition(t, pool, theirs))}.Sanitize()+
		` SET (autovacuum_enabled = off)`)
	require.NoError(t, err)
	const conversations, late = 6_000, 200
	for _, task := range []uuid.UUID{ours, theirs} {
		_, err = pool.Exec(ctx, `INSERT INTO analysis_task (id, owner_user_id, title, status, finished_at) VALUES ($1, $2, 'search partitions', 'completed', now())`, task, owner)
		require.NoError(t, err)
		_, err = pool.Exec(ctx, `INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, message_count, qc_status, diagnosis_status, failure_score)
			SELECT $1, $2, i, 'c' || i, '[]', 4, 'kept', 'done', 0.5 FROM generate_series(1, $3::int) AS i`, task, owner, conversations)
		require.NoError(t, err)
	}
	_, err = pool.Exec(ctx, `INSERT INTO task_search (task_id, owner_user_id, seq, doc)
		SELECT $1, $2, i, CASE WHEN i > $3::int - $4::int THEN 'order late'::tsvector ELSE 'order'::tsvector END
		FROM generate_series(1, $3::int) AS i`, ours, owner, conversations, late)
	require.NoError(t, err)
	oursTable, oursIndex := searchPartition(t, pool, ours)
	_, err = pool.Exec(ctx, `SELECT gin_clean_pending_list($1::regclass)`, oursIndex)
	require.NoError(t, err)

	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL gin_pending_list_limit = '64MB'`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO task_search (task_id, owner_user_id, seq, doc)
			SELECT $1, $2, i, array_to_tsvector(ARRAY(SELECT 'w' || ((i * 7919 + j * 104729) % 50000) FROM generate_series(1, 60) AS j) || ARRAY['order', 'late'])
			FROM generate_series(1, $3::int) AS i`, theirs, owner, conversations)
		return err
	})
	require.NoError(t, err)
	theirsTable, theirsIndex := searchPartition(t, pool, theirs)
	_, err = pool.Exec(ctx, `ANALYZE task_conversation, `+pgx.Identifier{oursTable}.Sanitize()+`, `+pgx.Identifier{theirsTable}.Sanitize())
	require.NoError(t, err, "as a large task's diagnosis analyzes its partition")
	pending, err := dbtest.PendingSearch(ctx, pool, theirs)
	require.NoError(t, err)
	require.Positive(t, pending.Pages)

	searchPlan := func(task uuid.UUID) scans {
		_, err := store.New(pool).Conversations(ctx, task, store.NewOwner(owner), store.ConversationFilter{Query: "'late':*"}, 50)
		require.NoError(t, err)
		partition, _ := searchPartition(t, pool, task)
		var s scans
		rec.explain(t, pool).scansOf(partition, &s)
		return s
	}
	other := searchPlan(theirs)
	require.NotEmpty(t, other.indexes, "the other task's search reads its partition")
	require.NotContains(t, other.indexes, theirsIndex,
		"the other task's own search is planned away from its index: so would ours be, if one index held both")
	s := searchPlan(ours)
	require.Equal(t, []string{oursIndex}, s.indexes, "the search reads its matches from its partition's index")
	require.EqualValues(t, late, s.rows)
}

// hashPartition is the number of the partition that task's search documents are
// stored in.
func hashPartition(t *testing.T, pool *pgxpool.Pool, task uuid.UUID) int {
	t.Helper()
	var r int
	require.NoError(t, pool.QueryRow(context.Background(),
		`SELECT r FROM generate_series(0, 15) AS r WHERE satisfies_hash_partition('task_search'::regclass, 16, r, $1::uuid)`, task).Scan(&r))
	return r
}
