package taskstate_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/taskstate"
)

// Exactly the five ends are terminal.
func TestStatusesHaveFiveEnds(t *testing.T) {
	t.Parallel()
	terminal := 0
	for _, s := range taskstate.Statuses() {
		if s.Terminal() {
			terminal++
		}
	}
	require.Equal(t, 5, terminal)
	require.False(t, taskstate.Status("").Terminal(), "no status is not an end")
}

// A stage is after the steps run before it, and a task not started yet is after none.
func TestStagesComeInTheOrderTheyRun(t *testing.T) {
	t.Parallel()
	require.True(t, taskstate.Finishing.After(taskstate.Actions))
	require.True(t, taskstate.Clustering.After(taskstate.Quality))
	require.False(t, taskstate.Diagnosis.After(taskstate.Diagnosis))
	require.False(t, taskstate.Diagnosis.After(taskstate.Clustering))
	require.False(t, taskstate.Queued.After(taskstate.Quality))
}

// Only a written Action counts as written, and only a pending conversation is unchecked.
func TestUnitStatusesSayWhatTheyMean(t *testing.T) {
	t.Parallel()
	require.True(t, taskstate.ActionDone.Written())
	require.False(t, taskstate.ActionFailed.Written())
	require.False(t, taskstate.QCPending.Checked())
	for _, s := range []taskstate.QCStatus{taskstate.QCKept, taskstate.QCMalformed, taskstate.QCEmpty, taskstate.QCTooShort, taskstate.QCDuplicate} {
		require.True(t, s.Checked(), s)
	}
}
