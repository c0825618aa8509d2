package transcript_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
)

// TestFormatsAreOneListOfFamilies: every format has a name of its own, a label and a
// family the upload page explains, and every family explains at least one format.
func TestFormatsAreOneListOfFamilies(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	used := map[transcript.Family]bool{}
	for _, f := range transcript.Formats() {
		require.False(t, names[f.Name], "%s is listed once", f.Name)
		names[f.Name] = true
		require.NotEmpty(t, f.Label, f.Name)
		require.Contains(t, transcript.Families(), f.Family, f.Name)
		used[f.Family] = true
		require.Equal(t, f.Label, transcript.FormatLabel(f.Name))
	}
	for _, family := range transcript.Families() {
		require.True(t, used[family], "family %s explains a format", family)
	}
	_, listed := transcript.FormatNamed("sharegpt")
	require.False(t, listed, "a family is not a format")
	require.Equal(t, "xml", transcript.FormatLabel("xml"), "a name not listed reads as itself")
}
