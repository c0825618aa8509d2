package textmatch_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/textmatch"
)

// TestBrackets: where the first bracket closes and how many stay open, strings and
// their escaped quotes skipped.
func TestBrackets(t *testing.T) {
	t.Parallel()
	for s, want := range map[string][2]int{
		`"cabin": "business"`:                  {-1, 0},
		`{"a": [1, 2]}, "b": 3`:                {13, 0},
		`"pay":[{"id":"c1","amount":100}`:      {-1, 1},
		`{"note": "a } in \"quotes\" ]"} tail`: {31, 0},
		`"flights": [{"n": "HAT1"}, {"n": "H`:  {-1, 2},
	} {
		closed, open := textmatch.Brackets(s)
		require.Equal(t, want, [2]int{closed, open}, s)
	}
}
