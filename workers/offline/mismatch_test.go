package offline

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// mismatches reads the result's fields the call asked for, whatever else the result
// holds, and compares scalars only.
func TestMismatchesComparesTheAskedScalars(t *testing.T) {
	t.Parallel()
	args := `{"id": "A1", "cabin": "economy", "bags": 2, "insured": true, "passengers": [{"name": "Ana"}], "missing": "x"}`
	result := `{"id": " a1", "cabin": "business", "bags": 2, "insured": "yes", "passengers": "Ana",
		"history": [{"cabin": "economy", "at": {"day": 1}}], "total": 120.5}`
	require.Equal(t, []fieldMismatch{
		{field: "cabin", asked: "economy", got: "business"},
		{field: "insured", asked: "true", got: "yes"},
	}, mismatches(args, result))

	require.Equal(t, []fieldMismatch{{field: "cabin", asked: "economy", got: "business"}},
		mismatches(args, `{"cabin": "business", "total": 1e400, "bags": 1e999}`),
		"a number beyond float64 is skipped where it is, and hides nothing elsewhere")
	require.Nil(t, mismatches(args, `{"id": "A1", "cabin": "economy", "bags": 2.0}`), "equal values")
	require.Nil(t, mismatches(args, `[{"cabin": "business"}]`), "a result that is not an object")
	require.Nil(t, mismatches(args, `{"cabin": "business"`), "a result that is not JSON")
	require.Nil(t, mismatches(args, `null`))
	require.Nil(t, mismatches(`not json`, `{"cabin": "business"}`))
}
