package ingest_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
)

func TestOpenAIShapes(t *testing.T) {
	t.Parallel()
	data := jsonlLines(
		`{"id": 42, "messages": [`+
			`{"role": "Developer", "content": "be brief"},`+
			`{"role": "USER", "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "x"}}, {"type": "input_audio"}, {"type": "text", "text": "here"}]},`+
			`{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "find", "arguments": {"q": "a b", "n": 2}}}]},`+
			`{"role": "tool", "content": "found", "tool_call_id": "c1", "name": "find"},`+
			`{"role": "assistant", "function_call": {"name": "legacy", "arguments": "{}"}},`+
			`{"role": "function", "name": "legacy", "content": "ok"},`+
			`{"role": "assistant"}]}`,
		``,
		`  `,
		`{"messages": [{"role": "user", "content": "hi"}], "metadata": {"k": [1, 2]}}`,
	)

	convs, sum := mustParse(t, data)

	require.Equal(t, "openai-jsonl", sum.Format)
	require.Len(t, convs, 2)
	c := convs[0]
	require.Equal(t, "42", c.ID, "a numeric id is kept as text")
	require.Equal(t, []transcript.Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "look\n[image]\n[audio]\nhere"},
		{Role: "assistant", ToolCalls: []transcript.ToolCall{{ID: "c1", Name: "find", Arguments: `{"q":"a b","n":2}`}}},
		{Role: "tool", Content: "found", ToolCallID: "c1", Name: "find"},
		{Role: "assistant", ToolCalls: []transcript.ToolCall{{Name: "legacy", Arguments: "{}"}}},
		{Role: "tool", Content: "ok", Name: "legacy"},
		{Role: "assistant"},
	}, c.Messages)
	require.Equal(t, "conv-0002", convs[1].ID, "a missing id is generated from the position")
	require.JSONEq(t, `{"k": [1, 2]}`, string(convs[1].Metadata))
}

func TestDuplicateIDs(t *testing.T) {
	t.Parallel()
	msg := `"messages": [{"role": "user", "content": "hi"}]`
	data := jsonlLines(
		`{"id": "a", `+msg+`}`,
		`{"id": "a", `+msg+`}`,
		`{"id": "a-2", `+msg+`}`,
		`{"conversation_id": "a", "id": "ignored", `+msg+`}`,
		`{`+msg+`}`,
		`{"id": "conv-0005", `+msg+`}`,
	)

	convs, sum := mustParse(t, data)

	var ids []string
	for _, c := range convs {
		ids = append(ids, c.ID)
	}
	require.Equal(t, []string{"a", "a-2", "a-2-2", "a-3", "conv-0005", "conv-0005-2"}, ids)
	require.Equal(t, []string{
		`line 2: duplicate conversation id "a" renamed to "a-2"`,
		`line 3: duplicate conversation id "a-2" renamed to "a-2-2"`,
		`line 4: duplicate conversation id "a" renamed to "a-3"`,
		`line 6: duplicate conversation id "conv-0005" renamed to "conv-0005-2"`,
	}, warnings(t, sum))
}

func TestEmptyConversationsKept(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, data string
		warnings   []string
	}{
		{"openai jsonl", `{"id": "e", "messages": []}` + "\n" + okLine, []string{
			`line 1: conversation "e" has no messages; it is kept and set aside by the quality checks`,
		}},
		{"sharegpt jsonl", `{"id": "s", "conversations": []}` + "\n" + okLine, []string{
			`line 1: conversation "s" has no messages; it is kept and set aside by the quality checks`,
		}},
		{"json array", "[\n" + okLine + ",\n{\"messages\": []}\n]", []string{
			`line 3: conversation "conv-0002" has no messages; it is kept and set aside by the quality checks`,
		}},
		{"csv session rows", "conversation_id,role,content\na,user,hi\nb,,\nb,,\na,assistant,yo\n", []string{
			`row 3: conversation "b" has no messages; it is kept and set aside by the quality checks`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			convs, sum := mustParse(t, []byte(tc.data))

			require.Len(t, convs, 2)
			empty := 0
			for _, c := range convs {
				if len(c.Messages) == 0 {
					empty++
				}
			}
			require.Equal(t, 1, empty)
			require.Equal(t, tc.warnings, warnings(t, sum))
		})
	}
}

func TestShareGPTShapes(t *testing.T) {
	t.Parallel()
	data := jsonlLines(
		`{"id": "s1", "system": "policy", "conversations": [` +
			`{"from": "human", "value": "book"},` +
			`{"from": "gpt", "value": "checking"},` +
			`{"from": "function_call", "value": "{\"name\": \"search\", \"arguments\": {\"to\": \"SFO\"}}"},` +
			`{"from": "observation", "value": "[]"},` +
			`{"from": "function_call", "value": "[{\"name\": \"a\", \"arguments\": \"1\"}, {\"name\": \"b\"}]"},` +
			`{"from": "tool", "value": "done"},` +
			`{"from": "function_call", "value": "not json"},` +
			`{"role": "user", "content": "thanks"},` +
			`{"from": "GPT", "value": "bye"}]}`,
	)

	convs, sum := mustParse(t, data)

	require.Equal(t, "sharegpt-jsonl", sum.Format)
	require.Equal(t, []transcript.Conversation{{ID: "s1", Messages: []transcript.Message{
		{Role: "system", Content: "policy"},
		{Role: "user", Content: "book"},
		{Role: "assistant", Content: "checking", ToolCalls: []transcript.ToolCall{{Name: "search", Arguments: `{"to":"SFO"}`}}},
		{Role: "tool", Content: "[]"},
		{Role: "assistant", ToolCalls: []transcript.ToolCall{{Name: "a", Arguments: "1"}, {Name: "b"}}},
		{Role: "tool", Content: "done"},
		{Role: "assistant", Content: "not json"},
		{Role: "user", Content: "thanks"},
		{Role: "assistant", Content: "bye"},
	}}}, convs)
}

func TestPrettyDocuments(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, data, format string
		ids                []string
	}{
		{"single openai conversation", "\n{\n  \"id\": \"x\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"hi\"}\n  ]\n}\n", "openai-json", []string{"x"}},
		{"single sharegpt conversation, id last", "{\n \"conversations\": [\n  {\"from\": \"human\", \"value\": \"hi\"},\n  {\"from\": \"gpt\", \"value\": \"yo\"}\n ],\n \"id\": \"s\"\n}", "sharegpt-json", []string{"s"}},
		{"wrapper with other keys", "{\"version\": {\"a\": [1, {}]}, \"conversations\": [\n{\"id\": \"a\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]},\n{\"id\": \"b\", \"conversations\": [{\"from\": \"human\", \"value\": \"y\"}]}\n], \"count\": 2}", "openai-json", []string{"a", "b"}},
		{"concatenated pretty objects", "{\n\"messages\": [{\"role\": \"user\", \"content\": \"a\"}]\n}\n{\n\"messages\": [{\"role\": \"user\", \"content\": \"b\"}]\n}\n", "openai-json", []string{"conv-0001", "conv-0002"}},
		{"byte order mark and CRLF", "\ufeff[\r\n{\"messages\": [{\"role\": \"user\", \"content\": \"a\"}]}\r\n]\r\n", "openai-json", []string{"conv-0001"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			convs, sum := mustParse(t, []byte(tc.data))
			require.Equal(t, tc.format, sum.Format)
			_, listed := transcript.FormatNamed(sum.Format)
			require.True(t, listed, "%s is one of transcript.Formats", sum.Format)
			var ids []string
			for _, c := range convs {
				ids = append(ids, c.ID)
			}
			require.Equal(t, tc.ids, ids)
		})
	}
}

func TestCSVLoose(t *testing.T) {
	t.Parallel()
	data := "\ufeffSession-ID;Speaker;Message;Created At\n" +
		"b;Customer;where is my bag;2024-05-15 10:00:03\n" +
		"a;BOT;\"hello;\n\"\"friend\"\"\";2024-05-15T10:00:02Z\n" +
		"\n" +
		"a;human;hi;1715767201\n" +
		"b;Agent;let me check;2024-05-15T10:00:04.5+00:00\n" +
		"a;system;be kind;2024-05-15 10:00:00\n"

	convs, sum := mustParse(t, []byte(data))

	require.Equal(t, "csv", sum.Format)
	require.Equal(t, []transcript.Conversation{
		{ID: "b", Messages: []transcript.Message{
			{Role: "user", Content: "where is my bag"},
			{Role: "assistant", Content: "let me check"},
		}},
		{ID: "a", Messages: []transcript.Message{
			{Role: "system", Content: "be kind"},
			{Role: "user", Content: "hi"},
			{Role: "assistant", Content: "hello;\n\"friend\""},
		}},
	}, convs, "grouped in order of first appearance, sorted by time")
}

func TestCSVOrderBeforeTime(t *testing.T) {
	t.Parallel()
	data := "thread_id,seq,ts,role,text\n" +
		"t,2,2024-01-01,assistant,second\n" +
		"t,1,2024-01-02,user,first\n" +
		"t,2,2023-12-31,user,between\n"

	convs, _ := mustParse(t, []byte(data))

	var got []string
	for _, m := range convs[0].Messages {
		got = append(got, m.Content)
	}
	require.Equal(t, []string{"first", "between", "second"}, got)
}

// TestCSVTabs reads a tab-separated file whose first column has no name: the leading
// tab of the header is a delimiter and must not be skipped as blank space.
func TestCSVTabs(t *testing.T) {
	t.Parallel()
	data := "\n\tchat_id\tauthor\tbody\nx\t1\tuser\ta\ny\t1\tassistant\t\n"

	convs, _ := mustParse(t, []byte(data))

	require.Equal(t, []transcript.Message{{Role: "user", Content: "a"}, {Role: "assistant"}}, convs[0].Messages)
}

func TestDocumentLineNumbers(t *testing.T) {
	t.Parallel()
	good := "  {\n    \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]\n  }"
	bad := "  {\n    \"messages\": [{\"role\": \"robot\", \"content\": \"x\"}]\n  }"
	data := "\n[\n" + strings.Join([]string{good, good, bad, good, bad}, ",\n") + "\n]\n"

	_, _, err := parseBytes(t, []byte(data), zeroLimits())

	requireRefusal(t, err, ""+
		`line 9: message 1: "role" must be one of system, developer, user, assistant, tool, function (got "robot")`+"\n"+
		`line 15: message 1: "role" must be one of system, developer, user, assistant, tool, function (got "robot")`)
}
