package transcript

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUnquoteJSONAgreesWithEncodingJSON: on every literal it accepts, the result is
// encoding/json's; what it refuses is what encoding/json treats in its own way.
func TestUnquoteJSONAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, lit := range []string{`""`, `"plain"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`, `"用户"`} {
		var want string
		require.NoError(t, json.Unmarshal([]byte(lit), &want))
		got, ok := UnquoteJSON(lit)
		require.True(t, ok, lit)
		require.Equal(t, want, got, lit)
	}
	for _, lit := range []string{``, `"`, `"open`, `"\x"`, `"\u12"`, `"\ud800"`, `"\ud800\u0041"`, "\"tab\there\"", "\"\xff\"", `"a"b"`} {
		_, ok := UnquoteJSON(lit)
		require.False(t, ok, "%q", lit)
	}
}
