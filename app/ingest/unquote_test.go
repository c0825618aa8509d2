package ingest

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestJSONString(t *testing.T) {
	t.Parallel()
	for _, lit := range []string{
		`""`, `"plain"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u00e9\u4e2d\u0000"`,
		`"\ud83d\ude00 smile"`, `"\ud83d alone"`, `"\ude00 low"`, `"\ud83d\u0041"`, `"end\ud83d"`,
		`"mixed é 中 \n"`, `"\uD83D\uDE00"`,
	} {
		var want string
		require.NoError(t, json.Unmarshal([]byte(lit), &want))
		require.Equal(t, want, jsonString([]byte(lit)), lit)
	}
}

// FuzzJSONString checks the unescaper against encoding/json on any valid literal of
// valid UTF-8 (the parser checks UTF-8 before decoding).
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`a\"b\\c\n\u00e9`, `\ud83d\ude00`, `\ud83d`, `\ud83d\u0041\/`, "中文"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lit := []byte(`"` + s + `"`)
		if !utf8.Valid(lit) || !json.Valid(lit) {
			return
		}
		var want string
		require.NoError(t, json.Unmarshal(lit, &want))
		require.Equal(t, want, jsonString(lit))
	})
}
