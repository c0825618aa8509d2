package pipeline

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
)

// requireDecodesLikeUnmarshal checks that decodeMessages gives json.Unmarshal's result
// and error, whichever path it takes.
func requireDecodesLikeUnmarshal(t *testing.T, s string) {
	t.Helper()
	var want []transcript.Message
	wantErr := json.Unmarshal([]byte(s), &want)
	got, err := decodeMessages(s)
	require.Equal(t, wantErr, err, "%q", s)
	require.Equal(t, want, got, "%q", s)
}

// jsonbText writes v as PostgreSQL's jsonb output does: ", " and ": " between tokens.
func jsonbText(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	var b strings.Builder
	inString, escaped := false, false
	for _, c := range string(raw) {
		b.WriteRune(c)
		switch {
		case escaped:
			escaped = false
		case c == '\\' && inString:
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == ':'):
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func TestDecodeMessagesLikeUnmarshal(t *testing.T) {
	t.Parallel()
	texts, convs := transcripttest.TextCorpus(t)
	for _, c := range convs {
		s := jsonbText(t, c.Messages)
		msgs, ok := readMessages(s)
		require.True(t, ok, "the stored shape takes the fast path")
		require.Equal(t, c.Messages, msgs)
		requireDecodesLikeUnmarshal(t, s)
	}
	r := rand.New(rand.NewPCG(5, 6))
	texts = append(texts, "\x00\x1f", "\"\\/\b\f\n\r\t", "\u2028\u2029", "😀\xed\xa0\x80", "<&>")
	for range 2000 {
		pick := func() string { return texts[r.IntN(len(texts))] }
		msgs := make([]transcript.Message, r.IntN(4))
		for i := range msgs {
			msgs[i] = transcript.Message{Role: transcript.Role(pick()), Content: pick(), Name: pick(), ToolCallID: pick()}
			for range r.IntN(3) {
				msgs[i].ToolCalls = append(msgs[i].ToolCalls, transcript.ToolCall{ID: pick(), Name: pick(), Arguments: pick()})
			}
		}
		requireDecodesLikeUnmarshal(t, jsonbText(t, msgs))
	}
	for _, s := range []string{
		``, `null`, `[]`, ` [ ] `, `[null]`, `{}`, `[{}]`, `[{"role": null}]`, `[{"role": 1}]`, `[{"Role": "user"}]`,
		`[{"role": "user", "role": "assistant"}]`, `[{"tool_calls": [{"id": "a"}], "tool_calls": [{"name": "b"}]}]`,
		`[{"tool_calls": null}]`, `[{"tool_calls": []}]`, `[{"content": "a\u00e9\ud83d\ude00"}]`, `[{"content": "\ud800"}]`,
		`[{"content": "\ud800\u0041"}]`, `[{"content": "\x"}]`, `[{"content": "\u12"}]`, `[{"content": "\u+123"}]`,
		"[{\"content\": \"a\tb\"}]", "[{\"content\": \"\xff\"}]", `[{"content": "a"}] x`, `[{"content": "a"},]`,
		`[{"content": "a"`, `[{"extra": {"x": [1, 2]}, "content": "a"}]`, `[{"content": "a"}][]`,
	} {
		requireDecodesLikeUnmarshal(t, s)
	}
}

func FuzzDecodeMessages(f *testing.F) {
	f.Add(`[{"role": "user", "content": "hi\n\u00e9"}, {"role": "assistant", "content": "", "tool_calls": [{"id": "1", "name": "x", "arguments": "{\"a\": 1}"}]}]`)
	f.Add(`[{"role": "tool", "content": "\ud83d\ude00", "tool_call_id": "1", "name": "x"}]`)
	f.Fuzz(func(t *testing.T, s string) {
		var want []transcript.Message
		wantErr := json.Unmarshal([]byte(s), &want)
		got, err := decodeMessages(s)
		if (wantErr == nil) != (err == nil) {
			t.Fatalf("%q: error %v, json.Unmarshal's %v", s, err, wantErr)
		}
		require.Equal(t, want, got, "%q", s)
	})
}
