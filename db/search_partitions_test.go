package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbtest"
)

// The migration that partitions the search documents (00018) moves those already
// stored with the table's grants, and so does taking it back: a deployment that
// upgrades keeps its tasks searchable, and deleting a task still deletes them.
func TestSearchPartitionsKeepTheDocuments(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.Isolated(t)
	ctx := context.Background()
	var owner int64
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('local','parts') RETURNING id`).Scan(&owner))
	var task string
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO analysis_task (owner_user_id, title) VALUES ($1, 't') RETURNING id`, owner).Scan(&task))
	_, err := pool.Exec(ctx, `INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, message_count)
		SELECT $1, $2, i, 'c' || i, '[]', 0 FROM generate_series(1, 3) AS i`, task, owner)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO task_search (task_id, owner_user_id, seq, doc)
		SELECT $1, $2, i, CASE WHEN i = 2 THEN 'refund'::tsvector ELSE 'order'::tsvector END FROM generate_series(1, 3) AS i`, task, owner)
	require.NoError(t, err)

	// as to a role that uses the tables without owning them
	_, err = pool.Exec(ctx, `GRANT SELECT ON task_search TO PUBLIC; GRANT UPDATE (doc) ON task_search TO PUBLIC`)
	require.NoError(t, err)

	provider := migrationsProvider(t, pool)
	found := func(kind string) {
		t.Helper()
		var relkind string
		var granted, columnGranted bool
		require.NoError(t, pool.QueryRow(ctx, `SELECT relkind::text,
				EXISTS (SELECT 1 FROM aclexplode(relacl) a WHERE a.grantee = 0 AND a.privilege_type = 'SELECT'),
				EXISTS (SELECT 1 FROM pg_attribute att, aclexplode(att.attacl) a
					WHERE att.attrelid = c.oid AND att.attname = 'doc' AND a.grantee = 0 AND a.privilege_type = 'UPDATE')
			FROM pg_class c WHERE oid = 'task_search'::regclass`).Scan(&relkind, &granted, &columnGranted))
		require.Equal(t, kind, relkind)
		require.True(t, granted, "the table's grant is kept")
		require.True(t, columnGranted, "the column's grant is kept")
		var documents int
		var seqs []int32
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*), array_agg(seq) FILTER (WHERE doc @@ 'refund'::tsquery) FROM task_search WHERE task_id = $1`,
			task).Scan(&documents, &seqs))
		require.Equal(t, 3, documents)
		require.Equal(t, []int32{2}, seqs)
	}
	found("p")
	_, err = provider.DownTo(ctx, 17)
	require.NoError(t, err)
	found("r")
	var helper bool
	require.NoError(t, pool.QueryRow(ctx, `SELECT to_regproc('task_search_replace') IS NOT NULL`).Scan(&helper))
	require.False(t, helper, "the Down drops the function the migration replaces the table with")
	_, err = provider.Up(ctx)
	require.NoError(t, err)
	found("p")
	var partitions int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM pg_partition_tree('task_search') WHERE isleaf`).Scan(&partitions))
	require.Equal(t, 16, partitions)

	_, err = pool.Exec(ctx, `DELETE FROM analysis_task WHERE id = $1`, task)
	require.NoError(t, err)
	var left int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM task_search WHERE task_id = $1`, task).Scan(&left))
	require.Zero(t, left, "a deleted task's documents go with it")
}
