package pipeline_test

import (
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
			if w.Stage == taskstate.Quality {
				out = append(out, w.Message)
			}
		}
		return out
	}
	require.Equal(t, []string{"Only 8 conversations were kept for diagnosis, so each one moves a share by 13 points: " +
		"read the shares, the failure rates and the order of the Actions as rough. At least 30 give steadier figures, a few hundred good ones."}, quality(8))
	require.Empty(t, quality(30))
}
