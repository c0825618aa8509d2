package pipeline_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/transcript"
)

// TestLargeTaskRefreshesTheListsStatistics: once a large task's diagnoses are stored,
// the run analyzes the tables the conversation list and its search read, so that they
// are planned on the task's rows at once, not when autovacuum gets to them.
func TestLargeTaskRefreshesTheListsStatistics(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var convs []transcript.Conversation
	for len(convs) < 1000 { // the size from which a run refreshes them; copies are dropped as duplicates
		for _, c := range sample(t) {
			c.ID = fmt.Sprintf("copy-%d", len(convs))
			convs = append(convs, c)
		}
	}
	id := b.upload(t, convs)
	require.EqualValues(t, "completed", b.runTask(t, id, offlineProbe(), pipeline.Options{}).Status)
	for _, table := range []string{"task_conversation", "task_search"} {
		var analyzed *time.Time // set by ANALYZE only, never by autovacuum
		require.NoError(t, b.pool.QueryRow(context.Background(),
			`SELECT last_analyze FROM pg_stat_user_tables WHERE relname = $1`, table).Scan(&analyzed))
		require.NotNil(t, analyzed, table)
	}
	require.Zero(t, searchPending(t, b), "search documents left in the words' index's pending list")
}

// TestTaskLeavesNoSearchDocumentsPending: a task of any size merges its search
// documents into the words' index. Left in its pending list, they would steer every
// owner's searches away from the index until autovacuum merged them.
func TestTaskLeavesNoSearchDocumentsPending(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.uploadSample(t)
	require.EqualValues(t, "completed", b.runTask(t, id, offlineProbe(), pipeline.Options{}).Status)
	var documents int
	require.NoError(t, b.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM task_search WHERE task_id = $1`, id).Scan(&documents))
	require.Positive(t, documents)
	require.Zero(t, searchPending(t, b), "search documents left in the words' index's pending list")
}

// searchPending counts the entries of the words' index's pending list.
func searchPending(t *testing.T, b *bundle) int64 {
	t.Helper()
	ctx := context.Background()
	_, err := b.pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pgstattuple`)
	require.NoError(t, err, "the pending list is read with pgstattuple, of PostgreSQL's contrib modules")
	var pending int64
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT pending_tuples FROM pgstatginindex('task_search_doc')`).Scan(&pending))
	return pending
}
