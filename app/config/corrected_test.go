package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCorrectedSettingsAreKeptForTasks(t *testing.T) {
	t.Parallel()
	cfg, warnings, err := Load(func(name string) string {
		if name == "ACTION_CONCURRENCY" {
			return "9"
		}
		return ""
	})
	require.NoError(t, err)
	require.Equal(t, 2, cfg.ActionConcurrency)
	require.Len(t, warnings, 1)
	require.Equal(t, warnings, cfg.Corrected, "the pipeline repeats them on every task")
}
