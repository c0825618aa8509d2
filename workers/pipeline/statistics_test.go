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
// are planned on the task's rows at once, not when autovacuum gets to them, and merges
// the words' index's pending list, which would steer a search away from the index.
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
	ctx := context.Background()
	_, err := b.pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pgstattuple`)
	require.NoError(t, err, "the pending list is read with pgstattuple, of PostgreSQL's contrib modules")
	var pending int64
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT pending_tuples FROM pgstatginindex('task_search_doc')`).Scan(&pending))
	require.Zero(t, pending, "search documents left in the words' index's pending list")
}
