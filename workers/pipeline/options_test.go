package pipeline

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOptionsConcurrency(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want int
		warn     bool
	}{
		{0, 2, false}, {1, 1, false}, {4, 4, false}, {-1, 2, true}, {5, 2, true}, {1000, 2, true},
	} {
		got, warnings := Options{ActionConcurrency: tc.in, DiagnosisConcurrency: tc.in}.withDefaults()
		require.Equal(t, tc.want, got.ActionConcurrency, "ACTION_CONCURRENCY=%d", tc.in)
		require.Equal(t, tc.want, got.DiagnosisConcurrency, "DIAGNOSIS_CONCURRENCY=%d", tc.in)
		if tc.warn {
			require.Len(t, warnings, 2)
			require.Contains(t, warnings[1], "ACTION_CONCURRENCY=")
			require.Contains(t, warnings[1], "ran with 2")
			require.Equal(t, "ACTION_CONCURRENCY", settingName(warnings[1]))
		} else {
			require.Empty(t, warnings)
		}
	}
	got, _ := Options{}.withDefaults()
	require.Equal(t, 5, got.MinConversations)
	require.Zero(t, got.MaxDiagnosed)

	_, warnings := Options{SettingWarnings: []string{`ACTION_CONCURRENCY="x": must be a whole number from 1 to 4; using 2`}}.withDefaults()
	require.Len(t, warnings, 1, "a setting corrected at start-up is repeated on tasks")
}
