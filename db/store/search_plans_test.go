package store_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
)

// A word's conversations can sort last: words of failure sit at the bottom of a list by
// success and the other way round. Checking each conversation the list's sort walks
// against its search document then reads nearly every document of the task before a
// page is found; the list reads the word's matches from the words' index once instead,
// and checks the walk against them. Here a word too common to be listed from its
// matches (over 2,000) is in the 2,500 conversations that sort last.
func TestSearchReadsItsMatchesOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, rec := recordingPool(t, "ListTaskConversations")

	const conversations, late = 6_000, 2_500
	var owner int64
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('test', 'search-plans') RETURNING id`).Scan(&owner))
	task := uuid.New()
	_, err := pool.Exec(ctx, `INSERT INTO analysis_task (id, owner_user_id, title, status, finished_at) VALUES ($1, $2, 'search plans', 'completed', now())`, task, owner)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, message_count, qc_status, diagnosis_status, failure_score)
		SELECT $1, $2, i, 'c' || i, '[]', 4, 'kept', 'done', CASE WHEN i > $3::int - $4::int THEN 0.1 ELSE 0.9 END
		FROM generate_series(1, $3::int) AS i`, task, owner, conversations, late)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO task_search (task_id, owner_user_id, seq, doc)
		SELECT $1, $2, i, CASE WHEN i > $3::int - $4::int THEN 'order late'::tsvector ELSE 'order'::tsvector END
		FROM generate_series(1, $3::int) AS i`, task, owner, conversations, late)
	require.NoError(t, err)
	partition, index := searchPartition(t, pool, task)
	_, err = pool.Exec(ctx, `ANALYZE task_conversation, `+pgx.Identifier{partition}.Sanitize())
	require.NoError(t, err, "as a large task's diagnosis analyzes its partition")

	list, err := store.New(pool).Conversations(ctx, task, store.NewOwner(owner), store.ConversationFilter{Query: "'late':*"}, 50)
	require.NoError(t, err)
	require.Len(t, list.Conversations, 50)
	for _, c := range list.Conversations {
		require.Greater(t, c.Seq, int32(conversations-late), "conversation %d does not have the word", c.Seq)
	}

	plan := rec.explain(t, pool)
	var s scans
	plan.scansOf(partition, &s)
	require.Equal(t, []string{index}, s.indexes, "the matches are read from the words' index, and no document is probed")
	require.LessOrEqual(t, s.rows, int64(late), "each match is read once")
}

// searchPartition names the partition that holds task's search documents and its
// words' index.
func searchPartition(t *testing.T, pool *pgxpool.Pool, task uuid.UUID) (table, index string) {
	t.Helper()
	table, index, ok, err := dbtest.SearchPartition(context.Background(), pool, task)
	require.NoError(t, err)
	require.True(t, ok, "the task has search documents")
	return table, index
}

// recordingPool is a pool on a database of the test's own that records the last query
// named name it runs.
func recordingPool(t *testing.T, name string) (*pgxpool.Pool, *listQueries) {
	t.Helper()
	_, dbURL := dbtest.Isolated(t)
	cfg, err := pgxpool.ParseConfig(dbURL)
	require.NoError(t, err)
	rec := &listQueries{name: name}
	cfg.ConnConfig.Tracer = rec
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool, rec
}

// listQueries records the last query of one name a pool runs, with its arguments.
type listQueries struct {
	name string
	mu   sync.Mutex
	sql  string
	args []any
}

func (r *listQueries) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if strings.HasPrefix(d.SQL, "-- name: "+r.name+" ") {
		r.mu.Lock()
		r.sql, r.args = d.SQL, d.Args
		r.mu.Unlock()
	}
	return ctx
}

func (r *listQueries) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// explain runs the last query again under EXPLAIN ANALYZE, planned for its
// arguments as the store plans it and with sequential scans off as a search sets them,
// and returns its plan.
func (r *listQueries) explain(t *testing.T, pool *pgxpool.Pool) planNode {
	t.Helper()
	r.mu.Lock()
	sql, args := r.sql, r.args
	r.mu.Unlock()
	require.NotEmpty(t, sql, "%s ran", r.name)
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	require.NoError(t, dbsqlc.New().PreferSearchIndexes(ctx, tx), "as the list's transaction does before its search")
	var out []byte
	require.NoError(t, tx.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+sql, args...).Scan(&out))
	var plans []struct{ Plan planNode }
	require.NoError(t, json.Unmarshal(out, &plans))
	return plans[0].Plan
}
