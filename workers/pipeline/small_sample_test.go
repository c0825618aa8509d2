package pipeline_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/pipeline"
)

// A diagnosis of fewer than 30 kept conversations warns, once, that its shares and
// ranking are rough, with how much one conversation moves a share; one of 30 does not.
func TestASmallSampleSaysItsFiguresAreRough(t *testing.T) {
	t.Parallel()
	b := setup(t)
	quality := func(n int) []string {
		task := b.runTask(t, b.upload(t, sample(t)[:n]), offline.New(offline.Options{}), pipeline.Options{})
		require.EqualValues(t, "completed", task.Status, task.Error)
		var out []string
		for _, w := range b.warnings(t, task.ID) {
			if w.Stage == taskstate.Risk {
				out = append(out, w.Message)
			}
		}
		return out
	}
	require.Equal(t, []string{"Only 8 conversations are analyzed, so each one moves a share by 13 points: " +
		"read the shares, the failure rates and the order of the Actions as rough. At least 30 give steadier figures, a few hundred good ones."}, quality(8))
	require.Empty(t, quality(30))
}

// With MAX_DIAGNOSED the warning counts the conversations analyzed, not those kept; a
// task with too few to diagnose gets no warning, only its end.
func TestTheSmallSampleWarningCountsWhatIsAnalyzed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	warned := func(n int, opt pipeline.Options) (string, []string, int) {
		task := b.runTask(t, b.upload(t, sample(t)[:n]), offline.New(offline.Options{}), opt)
		var out []string
		for _, w := range b.warnings(t, task.ID) {
			if w.Stage == taskstate.Risk {
				out = append(out, w.Message)
			}
		}
		var selected int
		require.NoError(t, b.pool.QueryRow(context.Background(),
			`SELECT count(*) FROM task_conversation WHERE task_id = $1 AND selected`, task.ID).Scan(&selected))
		return string(task.Status), out, selected
	}
	status, ws, analyzed := warned(40, pipeline.Options{MaxDiagnosed: 10})
	require.Equal(t, "completed", status)
	require.Less(t, analyzed, 30, "every flagged one and a sample")
	require.Len(t, ws, 1)
	require.Contains(t, ws[0], fmt.Sprintf("Only %d conversations are analyzed", analyzed), "of 40 kept")
	status, ws, _ = warned(3, pipeline.Options{MinConversations: 5})
	require.Equal(t, "insufficient_data", status)
	require.Empty(t, ws)
}
