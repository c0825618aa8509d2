package components_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale"
)

// english is the English localizer, the one the components' tests read them in.
func english(t testing.TB) *locale.Localizer {
	t.Helper()
	b, err := locale.New()
	require.NoError(t, err)
	return b.English()
}
