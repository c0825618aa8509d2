package pipeline_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/pipeline"
)

// A large upload's statistics may have been taken while its COPY was uncommitted; the
// quality pass of a task of 1,000 conversations or more refreshes them first, so its
// batch writes are planned on its rows (db/store's batch plan test shows the plans).
func TestTheQualityPassOfALargeTaskRefreshesTheStatistics(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var convs []transcript.Conversation
	copies := sample(t)
	for k := range 10 {
		for _, conv := range copies {
			conv.ID = fmt.Sprintf("%s-%d", conv.ID, k) // the same content: removed as duplicates after the first copy
			convs = append(convs, conv)
		}
	}
	task := b.runTask(t, b.upload(t, convs), offline.New(offline.Options{}), pipeline.Options{})
	require.EqualValues(t, "completed", task.Status, task.Error)
	require.Eventually(t, func() bool {
		var n int64
		err := b.pool.QueryRow(context.Background(),
			`SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'task_conversation'`).Scan(&n)
		return err == nil && n >= 1
	}, 10*time.Second, 50*time.Millisecond, "the pass analyzed task_conversation (its statistics reach pg_stat within a second)")
}
