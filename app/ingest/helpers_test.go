package ingest_test

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/app/ingest/ingesttest"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
)

// samplePath is the shared sample export, 100 OpenAI-format conversations.
const samplePath = "../../testdata/airline-100.jsonl"

// readSample returns the sample file's bytes.
func readSample(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(samplePath)
	require.NoError(t, err)
	return data
}

// parseBytes parses data and collects what was emitted.
func parseBytes(t testing.TB, data []byte, lim ingest.Limits) ([]transcript.Conversation, ingest.Summary, error) {
	t.Helper()
	var convs []transcript.Conversation
	sum, err := ingest.Parse(bytes.NewReader(data), lim, func(c transcript.Conversation) error {
		convs = append(convs, c)
		return nil
	})
	return convs, sum, err
}

// mustParse parses data that must be valid.
func mustParse(t testing.TB, data []byte) ([]transcript.Conversation, ingest.Summary) {
	t.Helper()
	convs, sum, err := parseBytes(t, data, ingest.Limits{})
	require.NoError(t, err)
	return convs, sum
}

// gzipped compresses data.
func gzipped(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(data)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// writeJSONArray writes a pretty-printed JSON array of OpenAI conversations.
func writeJSONArray(t testing.TB, convs []transcript.Conversation) []byte {
	t.Helper()
	items := make([]ingesttest.OpenAIConversation, len(convs))
	for i, c := range convs {
		items[i] = ingesttest.ToOpenAI(c)
	}
	data, err := json.MarshalIndent(items, "", "  ")
	require.NoError(t, err)
	return data
}

// writeWrapper writes {"conversations": [...]} of OpenAI conversations, compact (one
// line) or pretty-printed.
func writeWrapper(t testing.TB, convs []transcript.Conversation, pretty bool) []byte {
	t.Helper()
	w := struct {
		Conversations []ingesttest.OpenAIConversation `json:"conversations"`
	}{}
	for _, c := range convs {
		w.Conversations = append(w.Conversations, ingesttest.ToOpenAI(c))
	}
	var data []byte
	var err error
	if pretty {
		data, err = json.MarshalIndent(w, "", "\t")
	} else {
		data, err = json.Marshal(w)
	}
	require.NoError(t, err)
	return data
}

// sgConversation is the ShareGPT shape the tests write.
type sgConversation struct {
	ID            string          `json:"id"`
	Conversations []sgTurn        `json:"conversations"`
	Metadata      json.RawMessage `json:"metadata,omitempty"`
}

type sgTurn struct {
	From  string `json:"from"`
	Value string `json:"value"`
}

// toShareGPT renders a conversation as ShareGPT: a tool call becomes a function_call
// turn after the assistant's text, a tool result an observation turn.
func toShareGPT(t testing.TB, c transcript.Conversation) sgConversation {
	t.Helper()
	from := map[transcript.Role]string{"system": "system", "user": "human", "assistant": "gpt", "tool": "observation"}
	out := sgConversation{ID: c.ID, Metadata: c.Metadata}
	for _, m := range c.Messages {
		if m.Content != "" || len(m.ToolCalls) == 0 {
			out.Conversations = append(out.Conversations, sgTurn{From: from[m.Role], Value: m.Content})
		}
		for _, tc := range m.ToolCalls {
			v, err := json.Marshal(map[string]string{"name": tc.Name, "arguments": tc.Arguments})
			require.NoError(t, err)
			out.Conversations = append(out.Conversations, sgTurn{From: "function_call", Value: string(v)})
		}
	}
	return out
}

// writeShareGPT writes ShareGPT conversations as JSONL or as a JSON array.
func writeShareGPT(t testing.TB, convs []transcript.Conversation, lines bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	items := make([]sgConversation, len(convs))
	for i, c := range convs {
		items[i] = toShareGPT(t, c)
	}
	if !lines {
		require.NoError(t, json.NewEncoder(&buf).Encode(items))
		return buf.Bytes()
	}
	enc := json.NewEncoder(&buf)
	for _, it := range items {
		require.NoError(t, enc.Encode(it))
	}
	return buf.Bytes()
}

// writeCSV writes one message per row with a turn column. Rows are interleaved across
// conversations and each conversation's rows are written last turn first, so the
// parser must group and sort them.
func writeCSV(t testing.TB, convs []transcript.Conversation) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	require.NoError(t, w.Write([]string{"Conversation ID", "Turn", "Role", "Content", "Name", "Tool Call ID", "Tool Calls"}))
	longest := 0
	for _, c := range convs {
		longest = max(longest, len(c.Messages))
	}
	for k := range longest {
		for _, c := range convs {
			i := len(c.Messages) - 1 - k
			if i < 0 {
				continue
			}
			m := c.Messages[i]
			calls := ""
			if len(m.ToolCalls) > 0 {
				b, err := json.Marshal(ingesttest.OpenAICalls(m.ToolCalls))
				require.NoError(t, err)
				calls = string(b)
			}
			require.NoError(t, w.Write([]string{c.ID, strconv.Itoa(i + 1), string(m.Role), m.Content, m.Name, m.ToolCallID, calls}))
		}
	}
	w.Flush()
	require.NoError(t, w.Error())
	return buf.Bytes()
}

// canonical renders conversations for comparison: JSON with metadata compacted, so
// formats that re-encode metadata compare equal to the original.
func canonical(t testing.TB, convs []transcript.Conversation) []string {
	t.Helper()
	out := make([]string, len(convs))
	for i, c := range convs {
		b, err := json.Marshal(c)
		require.NoError(t, err)
		out[i] = string(b)
	}
	return out
}

// jsonlLines builds a JSONL file from lines.
func jsonlLines(lines ...string) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		fmt.Fprintln(&b, l)
	}
	return b.Bytes()
}

// zeroLimits leaves every limit at its default.
func zeroLimits() ingest.Limits { return ingest.Limits{} }

// english is the English localizer, which the tests read the problems and warnings in.
func english(t testing.TB) *locale.Localizer {
	t.Helper()
	b, err := locale.New()
	require.NoError(t, err)
	return b.English()
}

// refusal writes a refused file's problems one per line in English, as the upload page
// lists them: the located problems, "and N more", then the reason parsing stopped; a
// whole-file refusal is its sentence, and any other error its message.
func refusal(t testing.TB, err error) string {
	t.Helper()
	var located *ingest.Error
	var file *ingest.FileError
	switch {
	case errors.As(err, &located):
		return strings.Join(located.Lines(english(t)), "\n")
	case errors.As(err, &file):
		return english(t).Text(file.Msg)
	case err != nil:
		return err.Error()
	}
	return ""
}

// warnings writes an upload's warnings in English, "where: what".
func warnings(t testing.TB, sum ingest.Summary) []string {
	t.Helper()
	var out []string
	for _, w := range sum.Warnings {
		out = append(out, english(t).Text(w.Text()))
	}
	return out
}

// requireRefusal fails unless err is refused with exactly want, as refusal writes it.
func requireRefusal(t testing.TB, err error, want string, msgAndArgs ...any) {
	t.Helper()
	require.Error(t, err, msgAndArgs...)
	require.Equal(t, want, refusal(t, err), msgAndArgs...)
}
