package ingest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/ingest/ingesttest"
	"github.com/checkup-dev/checkup/db/transcript"
)

// plainCounts decodes the sample with encoding/json alone, as the reference the parser
// is checked against.
type plainCounts struct {
	ids       []string
	metadata  []json.RawMessage
	messages  int
	toolCalls int
	toolMsgs  int
	arguments []string
}

func decodePlain(t *testing.T, data []byte) plainCounts {
	t.Helper()
	var pc plainCounts
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			ConversationID string          `json:"conversation_id"`
			Metadata       json.RawMessage `json:"metadata"`
			Messages       []struct {
				Role      string `json:"role"`
				ToolCalls []struct {
					Function struct {
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line))
		pc.ids = append(pc.ids, line.ConversationID)
		pc.metadata = append(pc.metadata, line.Metadata)
		for _, m := range line.Messages {
			pc.messages++
			pc.toolCalls += len(m.ToolCalls)
			for _, tc := range m.ToolCalls {
				pc.arguments = append(pc.arguments, tc.Function.Arguments)
			}
			if m.Role == "tool" {
				pc.toolMsgs++
			}
		}
	}
	require.NoError(t, sc.Err())
	return pc
}

func TestParseSample(t *testing.T) {
	t.Parallel()
	data := readSample(t)
	want := decodePlain(t, data)

	convs, sum := mustParse(t, data)

	require.Equal(t, "openai-jsonl", sum.Format)
	require.False(t, sum.Gzip)
	require.Equal(t, 100, sum.Conversations)
	require.Len(t, convs, 100)
	require.Equal(t, want.messages, sum.Messages)
	require.Equal(t, int64(len(data)), sum.DecompressedBytes)
	require.Empty(t, sum.Warnings)

	var toolCalls, toolMsgs, answered int
	var arguments []string
	callIDs := map[string]bool{}
	for i, c := range convs {
		require.Equal(t, want.ids[i], c.ID, "ids are kept, in file order")
		require.JSONEq(t, string(want.metadata[i]), string(c.Metadata), "metadata is kept")
		require.Equal(t, transcript.RoleSystem, c.Messages[0].Role)
		for _, m := range c.Messages {
			require.True(t, m.Role.Valid())
			toolCalls += len(m.ToolCalls)
			for _, tc := range m.ToolCalls {
				require.NotEmpty(t, tc.ID)
				require.NotEmpty(t, tc.Name)
				arguments = append(arguments, tc.Arguments)
				callIDs[tc.ID] = true
			}
			if m.Role == transcript.RoleTool {
				toolMsgs++
				if callIDs[m.ToolCallID] {
					answered++
				}
				require.NotEmpty(t, m.Name)
			}
		}
	}
	require.Equal(t, want.toolCalls, toolCalls)
	require.Equal(t, 621, toolCalls)
	require.Equal(t, want.toolMsgs, toolMsgs)
	require.Equal(t, toolMsgs, answered, "every tool message answers a call made earlier")
	require.Equal(t, want.arguments, arguments, "arguments are kept verbatim")
}

func TestParseSampleGzip(t *testing.T) {
	t.Parallel()
	data := readSample(t)
	plain, _ := mustParse(t, data)

	convs, sum := mustParse(t, gzipped(t, data))

	require.True(t, sum.Gzip)
	require.Equal(t, "openai-jsonl", sum.Format)
	require.Equal(t, int64(len(data)), sum.DecompressedBytes)
	require.Equal(t, canonical(t, plain), canonical(t, convs))
}

// TestRoundTrip writes the sample's conversations in every accepted format, plain and
// gzipped, and parses each back.
//
// What a format cannot carry is dropped from the expectation: ShareGPT has no tool call
// ids, and its observation turns have no tool_call_id or tool name (an assistant message
// that both spoke and called a tool is written as a gpt turn and a function_call turn,
// and joined again on reading). CSV carries everything but the metadata (and so the
// labels read from it).
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	orig, _ := mustParse(t, readSample(t))
	withoutMetadata := ingesttest.Map(orig, func(c *transcript.Conversation) { c.Metadata, c.Label = nil, "" })
	shareGPTLoss := ingesttest.Map(orig, func(c *transcript.Conversation) {
		for i := range c.Messages {
			m := &c.Messages[i]
			m.Name, m.ToolCallID = "", ""
			for j := range m.ToolCalls {
				m.ToolCalls[j].ID = ""
			}
		}
	})
	cases := []struct {
		name   string
		data   []byte
		format string
		want   []transcript.Conversation
	}{
		{"json array", writeJSONArray(t, orig), "openai-json", orig},
		{"wrapper one line", writeWrapper(t, orig, false), "openai-json", orig},
		{"wrapper pretty", writeWrapper(t, orig, true), "openai-json", orig},
		{"sharegpt jsonl", writeShareGPT(t, orig, true), "sharegpt-jsonl", shareGPTLoss},
		{"sharegpt json", writeShareGPT(t, orig, false), "sharegpt-json", shareGPTLoss},
		{"csv", writeCSV(t, orig), "csv", withoutMetadata},
	}
	for _, tc := range cases {
		for _, gz := range []bool{false, true} {
			name := tc.name
			data := tc.data
			if gz {
				name += " gzip"
				data = gzipped(t, data)
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				convs, sum := mustParse(t, data)
				require.Equal(t, tc.format, sum.Format)
				require.Equal(t, gz, sum.Gzip)
				require.Equal(t, 100, sum.Conversations)
				require.Equal(t, 2947, sum.Messages)
				require.Equal(t, int64(len(tc.data)), sum.DecompressedBytes)
				require.Equal(t, canonical(t, tc.want), canonical(t, convs))
			})
		}
	}
}
