package taskstate_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/taskstate"
)

// Every status has words of its own, and exactly the five ends are terminal.
func TestStatusesHaveLabelsAndFiveEnds(t *testing.T) {
	t.Parallel()
	terminal := 0
	for _, s := range taskstate.Statuses() {
		require.NotEqual(t, string(s), s.Label(), s)
		if s.Terminal() {
			terminal++
		}
	}
	require.Equal(t, 5, terminal)
	require.False(t, taskstate.Status("").Terminal(), "no status is not an end")
	require.Equal(t, "Diagnosing conversations", taskstate.Diagnosis.Label())
	require.Equal(t, "Upload", taskstate.Upload.Label())
}
