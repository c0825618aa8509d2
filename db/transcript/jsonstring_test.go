package transcript

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
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
	for _, lit := range []string{``, `"`, `"open`, `"\x"`, `"\u12"`, `"\ud800"`, `"\ud800\u0041"`, "\"tab\there\"", "\"\xff\"", `"a"b"`, `"ends\"`} {
		_, ok := UnquoteJSON(lit)
		require.False(t, ok, "%q", lit)
	}
}

// TestUnquoteJSONOnRandomLiterals: literals pieced together from plain runs (long ones
// too, which are tested eight bytes at a time), escapes and multi-byte characters are
// decoded as encoding/json decodes them; one bad piece anywhere is refused.
func TestUnquoteJSONOnRandomLiterals(t *testing.T) {
	t.Parallel()
	good := []string{"a", "plain words ", "the quick brown fox jumps over the lazy dog", "é", "用户", "\x7f", " ",
		`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u00e9`, `\u003c`, `\ud83d\ude00`, `{\"id\": 12}`}
	bad := []string{`"`, "\x00", "\x01", "\n", "\x1f", `\x`, `\u12g`, `\ud800`, "\xff", "\xe4\xb8"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20_000 {
		var b strings.Builder
		pieces := rng.IntN(12)
		wrong := rng.IntN(3) == 0
		at := rng.IntN(pieces + 1)
		for i := 0; i <= pieces; i++ {
			if wrong && i == at {
				b.WriteString(bad[rng.IntN(len(bad))])
			}
			if i < pieces {
				b.WriteString(good[rng.IntN(len(good))])
			}
		}
		lit := `"` + b.String() + `"`
		got, ok := UnquoteJSON(lit)
		require.Equal(t, !wrong, ok, "%q", lit)
		if ok {
			var want string
			require.NoError(t, json.Unmarshal([]byte(lit), &want), "%q", lit)
			require.Equal(t, want, got, "%q", lit)
		}
	}
}

// TestPlainPrefixStopsAtEverySpecialByte: every byte value at every place of the first
// two words, after plain text, ends the prefix exactly where a byte-by-byte scan would.
func TestPlainPrefixStopsAtEverySpecialByte(t *testing.T) {
	t.Parallel()
	want := func(s string) int {
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] == '"' || s[i] == '\\' {
				return i
			}
		}
		return len(s)
	}
	for c := range 256 {
		for at := range 16 {
			b := []byte(strings.Repeat("plain é text ", 2))
			b[at] = byte(c)
			s := string(b)
			require.Equal(t, want(s), plainPrefix(s), "byte %#x at %d", c, at)
		}
	}
}
