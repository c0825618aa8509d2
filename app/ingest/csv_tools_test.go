package ingest_test

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/app/ingest/ingesttest"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/quality"
)

// writeCSVCallsAsText writes one row per message in order, the way many exports do: an
// assistant's tool calls as text lines name(arguments) after its words, each tool result
// a row with role tool and the tool's name, and no call ids at all. callText renders one
// call; nil writes no call text.
func writeCSVCallsAsText(t testing.TB, convs []transcript.Conversation, callText func(transcript.ToolCall) string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	require.NoError(t, w.Write([]string{"conversation_id", "turn", "role", "content", "tool_name"}))
	for _, c := range convs {
		for i, m := range c.Messages {
			content := m.Content
			if callText != nil {
				for _, tc := range m.ToolCalls {
					content = strings.TrimLeft(content+"\n"+callText(tc), "\n")
				}
			}
			require.NoError(t, w.Write([]string{c.ID, strconv.Itoa(i + 1), string(m.Role), content, m.Name}))
		}
	}
	w.Flush()
	require.NoError(t, w.Error())
	return buf.Bytes()
}

// withoutCallIDs is what a CSV without id columns can carry of the sample.
func withoutCallIDs(convs []transcript.Conversation) []transcript.Conversation {
	return ingesttest.Map(convs, func(c *transcript.Conversation) {
		c.Metadata, c.Label = nil, ""
		for i := range c.Messages {
			c.Messages[i].ToolCallID = ""
			for j := range c.Messages[i].ToolCalls {
				c.Messages[i].ToolCalls[j].ID = ""
			}
		}
	})
}

// malformedByQuality counts the conversations the quality checks would drop as
// malformed, by reason.
func malformedByQuality(convs []transcript.Conversation) map[string]int {
	verdicts, _ := quality.Check(convs, quality.Options{})
	out := map[string]int{}
	for _, v := range verdicts {
		if v.Status == quality.Malformed {
			out[v.Reason]++
		}
	}
	return out
}

// TestCSVToolCallsAsText reads the sample exported one row per message with the tool
// calls as text in the assistant's row: the calls are read back, every tool row answers
// one, and the quality checks keep every conversation (before, 97 of 100 were dropped
// because a tool result came before any tool call).
func TestCSVToolCallsAsText(t *testing.T) {
	t.Parallel()
	orig, _ := mustParse(t, readSample(t))
	forms := map[string]func(transcript.ToolCall) string{
		"name(arguments)": func(tc transcript.ToolCall) string { return tc.Name + "(" + tc.Arguments + ")" },
		"Tool call: name": func(tc transcript.ToolCall) string { return "Tool call: " + tc.Name + "(" + tc.Arguments + ")" },
		"json call object": func(tc transcript.ToolCall) string {
			return `{"name": "` + tc.Name + `", "arguments": ` + strconv.Quote(tc.Arguments) + `}`
		},
	}
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			convs, sum := mustParse(t, writeCSVCallsAsText(t, orig, form))

			require.Equal(t, 100, sum.Conversations)
			require.Empty(t, malformedByQuality(convs))
			require.Equal(t, canonical(t, withoutCallIDs(orig)), canonical(t, convs))
			require.Contains(t, strings.Join(warnings(t, sum), "\n"), "tool calls written as text in ")
		})
	}
}

// TestCSVToolRowsWithoutCalls reads the same export with no trace of the calls: each
// tool row is kept as the result of a call named after its tool, and the quality checks
// no longer drop the conversations.
func TestCSVToolRowsWithoutCalls(t *testing.T) {
	t.Parallel()
	orig, _ := mustParse(t, readSample(t))
	data := writeCSVCallsAsText(t, orig, nil)

	convs, sum := mustParse(t, data)

	require.Empty(t, malformedByQuality(convs))
	calls, results := 0, 0
	for ci, c := range convs {
		for i, m := range c.Messages {
			calls += len(m.ToolCalls)
			if m.Role == transcript.RoleTool {
				results++
			}
			for j, tc := range m.ToolCalls {
				require.Equal(t, orig[ci].Messages[i].ToolCalls[j].Name, tc.Name, "named after the tool row")
				require.Empty(t, tc.Arguments)
			}
		}
	}
	require.Equal(t, 621, calls)
	require.Equal(t, 621, results)
	require.Contains(t, warnings(t, sum), `row 2: 621 tool rows had no call to answer in the file; each is kept as the result of a call named after its row's tool (or "unnamed"), with no arguments`)
}

func TestCSVToolColumns(t *testing.T) {
	t.Parallel()
	data := "conversation_id,role,content,tool_name,arguments,tool_call_id,function_call\n" +
		"c,user,look it up,,,,\n" +
		`c,assistant,,lookup,"{""q"": 1}",call-1,` + "\n" +
		"c,tool,found,lookup,,call-1,\n" +
		`c,assistant,checking,,,,"{""name"": ""fetch"", ""arguments"": {""id"": 2}}"` + "\n" +
		"c,tool,fetched,,,,\n" +
		"c,tool,orphan,,,,\n" +
		"c,user,thanks,,,,\n" +
		"c,tool,after a user,,,,\n"

	convs, sum := mustParse(t, []byte(data))

	require.Equal(t, []transcript.Message{
		{Role: "user", Content: "look it up"},
		{Role: "assistant", ToolCalls: []transcript.ToolCall{{ID: "call-1", Name: "lookup", Arguments: `{"q": 1}`}}},
		{Role: "tool", Content: "found", Name: "lookup", ToolCallID: "call-1"},
		{Role: "assistant", Content: "checking", ToolCalls: []transcript.ToolCall{{Name: "fetch", Arguments: `{"id":2}`}, {Name: "unnamed"}}},
		{Role: "tool", Content: "fetched"},
		{Role: "tool", Content: "orphan"},
		{Role: "user", Content: "thanks"},
		{Role: "tool", Content: "after a user"},
	}, convs[0].Messages)
	require.Len(t, sum.Warnings, 1)

	_, _, err := parseBytes(t, []byte("conversation_id,role,content,function_call\nc,assistant,x,not json\n"), zeroLimits())
	requireRefusal(t, err, `row 2: "function_call" must be a JSON call such as {"name": "lookup", "arguments": {}}`)
}

func TestCSVLabelColumns(t *testing.T) {
	t.Parallel()
	data := "conversation_id,role,content,Resolved,CSAT\n" +
		"a,user,hi,,\n" +
		"a,assistant,hello,yes,\n" +
		"b,user,hi,,2\n" +
		"b,assistant,hello,,\n" +
		"c,user,hi,maybe,5\n" +
		"d,user,hi,,\n"

	convs, sum := mustParse(t, []byte(data))

	var got []transcript.Label
	for _, c := range convs {
		got = append(got, c.Label)
	}
	require.Equal(t, []transcript.Label{"succeeded", "failed", "succeeded", ""}, got)
	require.Equal(t, ingest.Labels{Field: "column CSAT", Failed: 1, Succeeded: 2, Unlabelled: 1}, sum.Labels)
	require.Contains(t, warnings(t, sum), `row 6: column Resolved is not an outcome Checkup can read ("maybe") in 1 conversation; it is ignored there`)
}
