package ingest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/db/transcript"
)

// span writes one OTLP span line with string attributes, for the tests below.
func spanLine(trace, start string, attrs ...string) string {
	var kvs []string
	for i := 0; i+1 < len(attrs); i += 2 {
		kvs = append(kvs, `{"key": `+quoteJSON(attrs[i])+`, "value": {"stringValue": `+quoteJSON(attrs[i+1])+`}}`)
	}
	return `{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "` + trace + `", "spanId": "s` + start + `", "name": "chat", "startTimeUnixNano": "` + start + `", "attributes": [` + strings.Join(kvs, ", ") + `]}]}]}]}`
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestRebuildHistoryForms checks the three ways calls carry a conversation: the whole
// history each time, no history (each call only its new turn), and a window of the last
// turns; each gives the conversation once.
func TestRebuildHistoryForms(t *testing.T) {
	t.Parallel()
	msgs := func(pairs ...string) string {
		var parts []string
		for i := 0; i+1 < len(pairs); i += 2 {
			parts = append(parts, `{"role": "`+pairs[i]+`", "parts": [{"type": "text", "content": "`+pairs[i+1]+`"}]}`)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	want := []transcript.Message{
		{Role: "system", Content: "policy"}, {Role: "user", Content: "u1"}, {Role: "assistant", Content: "a1"},
		{Role: "user", Content: "u2"}, {Role: "assistant", Content: "a2"}, {Role: "user", Content: "u3"}, {Role: "assistant", Content: "a3"},
	}
	cases := map[string][]string{
		"whole history": {
			spanLine("t1", "1", "gen_ai.operation.name", "chat", "gen_ai.system_instructions", `[{"type": "text", "content": "policy"}]`, "gen_ai.input.messages", msgs("user", "u1"), "gen_ai.output.messages", msgs("assistant", "a1")),
			spanLine("t1", "3", "gen_ai.operation.name", "chat", "gen_ai.system_instructions", `[{"type": "text", "content": "policy"}]`, "gen_ai.input.messages", msgs("user", "u1", "assistant", "a1", "user", "u2", "assistant", "a2", "user", "u3"), "gen_ai.output.messages", msgs("assistant", "a3")),
			spanLine("t1", "2", "gen_ai.operation.name", "chat", "gen_ai.system_instructions", `[{"type": "text", "content": "policy"}]`, "gen_ai.input.messages", msgs("user", "u1", "assistant", "a1", "user", "u2"), "gen_ai.output.messages", msgs("assistant", "a2")),
		},
		"no history": {
			spanLine("t1", "1", "gen_ai.operation.name", "chat", "gen_ai.input.messages", msgs("system", "policy", "user", "u1"), "gen_ai.output.messages", msgs("assistant", "a1")),
			spanLine("t1", "2", "gen_ai.operation.name", "chat", "gen_ai.input.messages", msgs("system", "policy", "user", "u2"), "gen_ai.output.messages", msgs("assistant", "a2")),
			spanLine("t1", "3", "gen_ai.operation.name", "chat", "gen_ai.input.messages", msgs("system", "policy", "user", "u3"), "gen_ai.output.messages", msgs("assistant", "a3")),
		},
		"window of the last turns": {
			spanLine("t1", "1", "gen_ai.operation.name", "chat", "gen_ai.input.messages", msgs("system", "policy", "user", "u1"), "gen_ai.output.messages", msgs("assistant", "a1")),
			spanLine("t1", "2", "gen_ai.operation.name", "chat", "gen_ai.input.messages", msgs("system", "policy", "user", "u1", "assistant", "a1", "user", "u2"), "gen_ai.output.messages", msgs("assistant", "a2")),
			spanLine("t1", "3", "gen_ai.operation.name", "chat", "gen_ai.input.messages", msgs("system", "policy", "assistant", "a2", "user", "u3"), "gen_ai.output.messages", msgs("assistant", "a3")),
		},
	}
	for name, spans := range cases {
		convs, sum := mustParse(t, jsonlLines(spans...))
		require.Equal(t, "otlp-jsonl", sum.Format, name)
		require.Len(t, convs, 1, name)
		require.Equal(t, "t1", convs[0].ID, "the trace names a conversation without an id")
		require.Equal(t, want, convs[0].Messages, name)
	}
}

func TestOTLPRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, data string
		kind       error
		want       string
	}{
		{"logs", `{"resourceLogs": [{"scopeLogs": []}]}`, ingest.ErrUnknownFormat, "This is an OpenTelemetry logs export; Checkup reads traces (resourceSpans)"},
		{"no messages", jsonLinesString(spanLine("t1", "1", "http.method", "GET"), spanLine("t2", "2", "gen_ai.operation.name", "chat")), ingest.ErrEmpty,
			"The file holds 2 spans but none records the messages of a model call"},
		{"bad span", `{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": 7}]}]}]}`, nil, `line 1: "traceId" must be a string, not number`},
		{"spans not an array", `{"resourceSpans": [{"scopeSpans": [{"spans": {}}]}]}`, nil, `line 1: "spans" must be an array`},
		{"cut short", "{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [\n", nil, "line 2: the JSON document ends too early"},
		{"too many messages", spanLine("t1", "1", "gen_ai.operation.name", "chat", "gen_ai.input.messages", `[{"role": "user", "parts": [{"type": "text", "content": "a"}]}, {"role": "user", "parts": [{"type": "text", "content": "b"}]}, {"role": "user", "parts": [{"type": "text", "content": "c"}]}]`),
			ingest.ErrTooManyMessages, "The conversation at line 1 has more than 2 messages"},
	}
	for _, tc := range cases {
		lim := ingest.Limits{}
		if tc.name == "too many messages" {
			lim.MaxMessages = 2
		}
		_, _, err := parseBytes(t, []byte(tc.data), lim)
		require.Error(t, err, tc.name)
		require.Contains(t, refusal(t, err), tc.want, tc.name)
		require.True(t, ingest.IsRejected(err), tc.name)
		if tc.kind != nil {
			require.ErrorIs(t, err, tc.kind, tc.name)
		}
	}
}

func jsonLinesString(lines ...string) string { return string(jsonlLines(lines...)) }

// TestOTLPOlderAttributes reads gen_ai.prompt and gen_ai.completion as JSON text, and
// reasoning parts, which are skipped and counted.
func TestOTLPOlderAttributes(t *testing.T) {
	t.Parallel()
	data := jsonlLines(
		spanLine("t9", "5", "gen_ai.system", "openai", "gen_ai.operation.name", "chat", "gen_ai.conversation.id", "c9",
			"gen_ai.prompt", `[{"role": "user", "content": "hello"}]`, "gen_ai.completion", `[{"role": "assistant", "content": "hi there"}]`),
		spanLine("t9", "6", "gen_ai.operation.name", "chat", "gen_ai.conversation.id", "c9",
			"gen_ai.input.messages", `[{"role": "user", "parts": [{"type": "text", "content": "hello"}]}, {"role": "assistant", "parts": [{"type": "text", "content": "hi there"}]}, {"role": "user", "parts": [{"type": "text", "content": "why?"}]}]`,
			"gen_ai.output.messages", `[{"role": "assistant", "parts": [{"type": "reasoning", "content": "hm"}, {"type": "text", "content": "because"}]}, {"role": "assistant", "parts": [{"type": "text", "content": "another choice"}]}]`),
	)

	convs, sum := mustParse(t, data)

	require.Equal(t, []transcript.Message{
		{Role: "user", Content: "hello"}, {Role: "assistant", Content: "hi there"},
		{Role: "user", Content: "why?"}, {Role: "assistant", Content: "because"},
	}, convs[0].Messages)
	require.Equal(t, "c9", convs[0].ID)
	require.Equal(t, map[string]int{"reasoning": 1}, sum.Skipped)
}

// TestLangSmithThreads groups the traces of one thread (metadata thread_id) into one
// conversation, and reads outcome fields from the metadata and from feedback_stats.
func TestLangSmithThreads(t *testing.T) {
	t.Parallel()
	run := func(id, trace, start, thread, inputs, outputs, feedback string) string {
		return `{"id": "` + id + `", "run_type": "llm", "trace_id": "` + trace + `", "parent_run_id": "root-` + trace + `", "start_time": "` + start +
			`", "inputs": ` + inputs + `, "outputs": ` + outputs + `, "extra": {"metadata": {"thread_id": "` + thread + `"}}, "feedback_stats": ` + feedback + `}`
	}
	data := jsonlLines(
		run("r2", "trace-b", "2024-05-15T10:05:00", "th-1", `{"messages": [{"role": "user", "content": "and now?"}]}`, `{"choices": [{"message": {"role": "assistant", "content": "done"}}]}`, `{"thumbs": {"n": 1, "avg": -1}}`),
		run("r1", "trace-a", "2024-05-15T10:00:00", "th-1", `{"messages": [[{"type": "human", "content": "start"}]]}`, `{"generations": [[{"text": "ok", "message": {"type": "ai", "content": "ok"}}]]}`, `{}`),
		run("r3", "trace-c", "2024-05-15T11:00:00", "th-2", `{"prompts": ["plain prompt"]}`, `{"generations": [[{"text": "plain answer"}]]}`, `null`),
	)

	convs, sum := mustParse(t, data)

	require.Equal(t, "langsmith-jsonl", sum.Format)
	require.Len(t, convs, 2)
	require.Equal(t, "th-1", convs[0].ID)
	require.Equal(t, []transcript.Message{{Role: "user", Content: "start"}, {Role: "assistant", Content: "ok"}, {Role: "user", Content: "and now?"}, {Role: "assistant", Content: "done"}}, convs[0].Messages)
	require.Equal(t, transcript.LabelFailed, convs[0].Label)
	require.Equal(t, []transcript.Message{{Role: "user", Content: "plain prompt"}, {Role: "assistant", Content: "plain answer"}}, convs[1].Messages)
	require.Equal(t, "feedback_stats.thumbs", sum.Labels.Field)
}

// TestLangSmithThumbsAverages reads a thumbs average as LangSmith records votes (0 down,
// 1 up) or as -1 and 1: all down is failed, mostly up succeeded, and an average that
// could be either is no label.
func TestLangSmithThumbsAverages(t *testing.T) {
	t.Parallel()
	for avg, want := range map[string]transcript.Label{
		"0": transcript.LabelFailed, "-1": transcript.LabelFailed, "-0.4": transcript.LabelFailed,
		"1": transcript.LabelSucceeded, "0.8": transcript.LabelSucceeded,
		"0.3": transcript.LabelNone, "0.5": transcript.LabelNone,
	} {
		line := `{"id": "r1", "run_type": "llm", "trace_id": "t1", "start_time": "2024-05-15T10:00:00", ` +
			`"inputs": {"messages": [{"role": "user", "content": "hi"}]}, "outputs": {"choices": [{"message": {"role": "assistant", "content": "hello"}}]}, ` +
			`"feedback_stats": {"thumbs": {"n": 2, "avg": ` + avg + `}}}`
		convs, _ := mustParse(t, jsonlLines(line))
		require.Len(t, convs, 1, avg)
		require.Equal(t, want, convs[0].Label, "avg %s", avg)
	}
}

// TestLangfuseScoresAndSessions reads a Langfuse API export ({"data": [...]}) of traces
// of one session, a generation whose input is plain text, and a score named like an
// outcome field, which labels the session.
func TestLangfuseScoresAndSessions(t *testing.T) {
	t.Parallel()
	data := `{"data": [
  {"id": "tr-1", "timestamp": "2024-05-15T10:00:00Z", "sessionId": "sess-1", "input": "ignored: the generations say it", "metadata": {"plan": "pro"},
   "observations": [{"id": "g1", "type": "GENERATION", "startTime": "2024-05-15T10:00:01Z", "input": "Where is my parcel?", "output": {"role": "assistant", "content": "On its way."}}]},
  {"id": "tr-2", "timestamp": "2024-05-15T10:01:00Z", "sessionId": "sess-1", "input": [{"role": "user", "content": "Thanks"}], "output": "You are welcome."},
  {"id": "sc-1", "traceId": "tr-2", "name": "CSAT", "value": 4, "dataType": "NUMERIC"},
  {"id": "sc-2", "traceId": "tr-1", "name": "helpfulness", "value": 0.1, "dataType": "NUMERIC"}
], "meta": {"page": 1}}`

	convs, sum := mustParse(t, []byte(data))

	require.Equal(t, "langfuse-json", sum.Format)
	require.Len(t, convs, 1)
	require.Equal(t, "sess-1", convs[0].ID)
	require.Equal(t, []transcript.Message{
		{Role: "user", Content: "Where is my parcel?"}, {Role: "assistant", Content: "On its way."},
		{Role: "user", Content: "Thanks"}, {Role: "assistant", Content: "You are welcome."},
	}, convs[0].Messages)
	require.JSONEq(t, `{"plan": "pro"}`, string(convs[0].Metadata))
	require.Equal(t, ingest.Labels{Field: "scores.CSAT", Succeeded: 1}, sum.Labels)
}
