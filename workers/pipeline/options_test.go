package pipeline

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A setting corrected at start-up is repeated on every task as a warning scoped to the
// variable it is about.
func TestSettingWarningsNameTheirVariable(t *testing.T) {
	t.Parallel()
	w := `ACTION_CONCURRENCY="x": must be a whole number from 1 to 4; using 2`
	require.Equal(t, "ACTION_CONCURRENCY", settingName(w))
	p := New(nil, nil, Options{SettingWarnings: []string{w}})
	require.Equal(t, []string{w}, p.warnings)
}
