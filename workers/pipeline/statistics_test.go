package pipeline_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/pipeline"
)

// TestLargeTaskRefreshesTheListsStatistics: once a large task's diagnoses are stored,
// the run analyzes what the conversation list and its search read, so that they are
// planned on the task's rows at once, not when autovacuum gets to them: the
// conversations, and the one partition of search documents that holds the task's.
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
	partition := searchPartition(t, b, id)
	for _, table := range []string{"task_conversation", partition} {
		var analyzed *time.Time // set by ANALYZE only, never by autovacuum
		require.NoError(t, b.pool.QueryRow(context.Background(),
			`SELECT last_analyze FROM pg_stat_user_tables WHERE relname = $1`, table).Scan(&analyzed))
		require.NotNil(t, analyzed, table)
	}
	var others []string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT coalesce(array_agg(relname::text), '{}') FROM pg_stat_user_tables
		WHERE relname LIKE 'task\_search%' AND relname <> $1 AND last_analyze IS NOT NULL`, partition).Scan(&others))
	require.Empty(t, others, "analyzed though they hold none of the task's search documents")
	require.Zero(t, searchPending(t, b, id), "search documents left in the words' index's pending list")
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
	require.Zero(t, searchPending(t, b, id), "search documents left in the words' index's pending list")
}

// searchPending counts the entries of the pending list of the words' index that holds
// task id's search documents.
func searchPending(t *testing.T, b *bundle, id uuid.UUID) int64 {
	t.Helper()
	p, err := dbtest.PendingSearch(context.Background(), b.pool, id)
	require.NoError(t, err)
	return p.Entries
}

// searchPartition names the partition that holds task id's search documents.
func searchPartition(t *testing.T, b *bundle, id uuid.UUID) string {
	t.Helper()
	table, _, ok, err := dbtest.SearchPartition(context.Background(), b.pool, id)
	require.NoError(t, err)
	require.True(t, ok, "the task has search documents")
	return table
}
