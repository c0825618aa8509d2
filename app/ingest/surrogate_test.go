package ingest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLoneSurrogates(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		lone bool
	}{
		{`"plain"`, false},
		{`"\ud83d\ude00 a pair"`, false},
		{`"\uD83D\uDE00 upper case"`, false},
		{`"\u00e9 \u4e2d not surrogates"`, false},
		{`"\\ud800 an escaped backslash, then text"`, false},
		{`"\\\ud800 three backslashes"`, true},
		{`"\ud800"`, true},
		{`"\udc00 a low half alone"`, true},
		{`"\ud800\n a high half before another escape"`, true},
		{`"\ud800\ud800 two high halves"`, true},
		{`"\ud800x"`, true},
	}
	for _, tc := range cases {
		require.Equal(t, tc.lone, hasLoneSurrogate([]byte(tc.text)), tc.text)
	}
}

// TestLoneSurrogateAcrossChunks feeds the scanner one byte at a time: escapes cut by a
// read boundary are still read whole.
func TestLoneSurrogateAcrossChunks(t *testing.T) {
	t.Parallel()
	for text, lone := range map[string]bool{`"\ud83d\ude00"`: false, `"ok \ud83d!"`: true} {
		var s surrogates
		found := false
		for i := range len(text) {
			if s.scan([]byte{text[i]}) >= 0 {
				found = true
			}
		}
		require.Equal(t, lone, found, text)
	}
}
