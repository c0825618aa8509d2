package ingest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
)

func TestAnthropicShapes(t *testing.T) {
	t.Parallel()
	data := jsonlLines(
		`{"id": "a1", "system": [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}, {"type": "text", "text": "be kind"}], "metadata": {"resolved": true}, "messages": [`+
			`{"role": "user", "content": "find order 7"},`+
			`{"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "x"}, {"type": "text", "text": "Looking."}, {"type": "tool_use", "id": "tu1", "name": "find", "input": {"id": 7, "deep": {"a": [1, 2]}}}, {"type": "tool_use", "id": "tu2", "name": "stock", "input": {}}]},`+
			`{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu1", "content": "order 7: shipped"}, {"type": "tool_result", "tool_use_id": "tu2", "is_error": true, "content": [{"type": "text", "text": "stock service down"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}}]}, {"type": "text", "text": "and?"}]},`+
			`{"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x"}, {"type": "text", "text": "It shipped."}]},`+
			`{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "https://x"}}, {"type": "text", "text": "see"}]}]}`,
		`{"id": "a2", "system": "policy", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}`,
	)

	convs, sum := mustParse(t, data)

	require.Equal(t, "anthropic-jsonl", sum.Format)
	require.Equal(t, []transcript.Conversation{
		{ID: "a1", Metadata: []byte(`{"resolved": true}`), Label: transcript.LabelSucceeded, Messages: []transcript.Message{
			{Role: "system", Content: "be brief\nbe kind"},
			{Role: "user", Content: "find order 7"},
			{Role: "assistant", Content: "Looking.", ToolCalls: []transcript.ToolCall{
				{ID: "tu1", Name: "find", Arguments: `{"id":7,"deep":{"a":[1,2]}}`},
				{ID: "tu2", Name: "stock", Arguments: `{}`},
			}},
			{Role: "tool", Content: "order 7: shipped", ToolCallID: "tu1", Name: "find"},
			{Role: "tool", Content: "Error: stock service down", ToolCallID: "tu2", Name: "stock"},
			{Role: "user", Content: "and?"},
			{Role: "assistant", Content: "It shipped."},
			{Role: "user", Content: "see"},
		}},
		{ID: "a2", Messages: []transcript.Message{
			{Role: "system", Content: "policy"},
			{Role: "user", Content: "hi"},
			{Role: "assistant", Content: "hello"},
		}},
	}, convs)
	require.Equal(t, map[string]int{"thinking": 1, "redacted_thinking": 1, "image": 2}, sum.Skipped)
	require.Equal(t, []string{"line 1: content blocks that are not text or tool calls were skipped (2 image, 1 redacted_thinking and 1 thinking); they are not analyzed"}, warnings(t, sum))
}

// TestAnthropicNamedLater checks that a file is named after Anthropic's format when its
// first conversations are plain strings, which both formats write alike.
func TestAnthropicNamedLater(t *testing.T) {
	t.Parallel()
	data := jsonlLines(okLine, `{"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}]}`)

	_, sum := mustParse(t, data)

	require.Equal(t, "anthropic-jsonl", sum.Format)
}

func TestAnthropicBadInput(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`{"system": 5, "messages": [{"role": "user", "content": "x"}]}`:                `line 1: "system" must be a string or an array of text blocks`,
		`{"system": "p", "messages": [{"role": "narrator", "content": "x"}]}`:          `line 1: message 1: "role" must be user or assistant (got "narrator")`,
		`{"system": "p", "messages": [{"role": "user", "content": {"type": "text"}}]}`: `line 1: message 1: "content" must be a string or an array of content blocks`,
	}
	for line, want := range cases {
		_, _, err := parseBytes(t, []byte(line), zeroLimits())
		requireRefusal(t, err, want, line)
	}
}
