package db_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbtest"
)

// Migration 16 turns the search documents of the tasks diagnosed before it into posting
// lists, and back when it is undone: no task loses its search, and a conversation
// without a word keeps its empty document.
func TestSearchPostingsMigrationKeepsEveryTasksTerms(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.Isolated(t)
	ctx := context.Background()
	sqlDB := stdlib.OpenDBFromPool(pool)
	t.Cleanup(func() { sqlDB.Close() })
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, os.DirFS("migrations"))
	require.NoError(t, err)
	_, err = provider.DownTo(ctx, 15)
	require.NoError(t, err)

	var owner int64
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('local', 'old') RETURNING id`).Scan(&owner))
	task := uuid.New()
	_, err = pool.Exec(ctx, `INSERT INTO analysis_task (id, owner_user_id, title) VALUES ($1, $2, 'old')`, task, owner)
	require.NoError(t, err)
	docs := map[int]string{1: "order refund", 2: "order 退款", 3: "", 501: "order", 502: "parcel refund"}
	for seq, doc := range docs {
		_, err = pool.Exec(ctx, `INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, message_count)
			VALUES ($1, $2, $3, $4, '[]', 0)`, task, owner, seq, fmt.Sprint("c", seq))
		require.NoError(t, err)
		_, err = pool.Exec(ctx, `INSERT INTO task_search (task_id, owner_user_id, seq, doc) VALUES ($1, $2, $3, $4::tsvector)`, task, owner, seq, doc)
		require.NoError(t, err)
	}

	_, err = provider.UpTo(ctx, 16)
	require.NoError(t, err)
	postings := map[string][]int32{}
	rows, err := pool.Query(ctx, `SELECT term || '@' || first_seq, seqs FROM task_search_term WHERE task_id = $1 AND owner_user_id = $2`, task, owner)
	require.NoError(t, err)
	for rows.Next() {
		var key string
		var seqs []int32
		require.NoError(t, rows.Scan(&key, &seqs))
		postings[key] = seqs
	}
	require.NoError(t, rows.Err())
	require.Equal(t, map[string][]int32{
		"@1": {1, 2, 3}, "order@1": {1, 2}, "refund@1": {1}, "退款@1": {2},
		"@501": {501, 502}, "order@501": {501}, "parcel@501": {502}, "refund@501": {502},
	}, postings, "a list per term and batch of 500, and the empty term's of every conversation")

	_, err = provider.DownTo(ctx, 15)
	require.NoError(t, err)
	for seq, doc := range docs {
		var same bool
		require.NoError(t, pool.QueryRow(ctx, `SELECT doc = $3::tsvector FROM task_search WHERE task_id = $1 AND seq = $2`, task, seq, doc).Scan(&same))
		require.True(t, same, "conversation %d", seq)
	}
	_, err = provider.Up(ctx)
	require.NoError(t, err)
}
