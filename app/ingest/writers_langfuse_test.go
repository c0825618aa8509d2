package ingest_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/checkup-dev/checkup/workers/transcript"
)

// openAIMessages renders messages as OpenAI's chat request does, which is what the
// Langfuse OpenAI integration records as a generation's input.
func openAIMessages(msgs []transcript.Message) []any {
	out := make([]any, len(msgs))
	for i, m := range msgs {
		out[i] = toOpenAI(transcript.Conversation{Messages: []transcript.Message{m}}).Messages[0]
	}
	return out
}

// langfuseTraceDownloads writes the conversations as Langfuse trace downloads, one per
// line: each conversation a session of traces (one per user turn), each trace with
// its generations nested, the metadata on the trace.
func writeLangfuseTraces(t testing.TB, convs []transcript.Conversation) []byte {
	t.Helper()
	var items []any
	for ci, c := range convs {
		calls := callsOf(c)
		for k := 0; k < len(calls); k += 4 { // four calls a trace
			traceID := fmt.Sprintf("%s-trace-%d", c.ID, k/4)
			var observations []any
			for j := k; j < min(k+4, len(calls)); j++ {
				gen := obj{{"id", fmt.Sprintf("%s-gen-%d", c.ID, j)}, {"traceId", traceID}, {"type", "GENERATION"}, {"name", "OpenAI-generation"},
					{"startTime", startOf(ci, j).Format("2006-01-02T15:04:05.000Z")}, {"model", "gpt-4o"},
					{"input", openAIMessages(calls[j].input)}}
				if calls[j].output != nil {
					gen = append(gen, kv{"output", openAIMessages(calls[j].output)[0]})
				}
				observations = append(observations, gen)
			}
			trace := obj{{"id", traceID}, {"timestamp", startOf(ci, k).Format("2006-01-02T15:04:05.000Z")}, {"name", "support-turn"},
				{"sessionId", c.ID}, {"input", calls[k].input[len(calls[k].input)-1].Content}}
			if len(c.Metadata) > 0 {
				trace = append(trace, kv{"metadata", c.Metadata})
			}
			trace = append(trace, kv{"observations", observations}, kv{"scores", []any{}})
			items = append(items, trace)
		}
	}
	return lines(t, items)
}

// writeLangfuseBlob writes the generations as Langfuse's blob-storage export of enriched
// observations does: snake_case fields, input and output as JSON text, the trace's
// session on every row, rows of all conversations interleaved.
func writeLangfuseBlob(t testing.TB, convs []transcript.Conversation) []byte {
	t.Helper()
	var items []any
	for k := 0; ; k++ {
		added := false
		for ci, c := range convs {
			calls := callsOf(c)
			if k >= len(calls) {
				continue
			}
			added = true
			output := ""
			if calls[k].output != nil {
				output = string(mustJSON(t, openAIMessages(calls[k].output)[0]))
			}
			items = append(items, obj{{"id", fmt.Sprintf("%s-gen-%d", c.ID, k)}, {"trace_id", fmt.Sprintf("%s-t%d", c.ID, k/2)},
				{"type", "GENERATION"}, {"start_time", startOf(ci, k).Format("2006-01-02 15:04:05.000000")},
				{"name", "chat"}, {"metadata", json.RawMessage(orEmpty(c.Metadata))}, {"level", "DEFAULT"},
				{"input", string(mustJSON(t, openAIMessages(calls[k].input)))}, {"output", output},
				{"provided_model_name", "gpt-4o"}, {"session_id", c.ID}, {"trace_name", "support"}})
		}
		if !added {
			break
		}
	}
	return lines(t, items)
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

// --- LangSmith ---

// lcMessage serialises a message as LangChain does in LangSmith runs.
func lcMessage(m transcript.Message) obj {
	class := map[transcript.Role]string{"system": "SystemMessage", "user": "HumanMessage", "assistant": "AIMessage", "tool": "ToolMessage"}[m.Role]
	typ := map[transcript.Role]string{"system": "system", "user": "human", "assistant": "ai", "tool": "tool"}[m.Role]
	kwargs := obj{{"content", m.Content}, {"type", typ}}
	if len(m.ToolCalls) > 0 {
		calls := []any{}
		for _, tc := range m.ToolCalls {
			calls = append(calls, obj{{"name", tc.Name}, {"args", args(tc)}, {"id", tc.ID}, {"type", "tool_call"}})
		}
		kwargs = append(kwargs, kv{"tool_calls", calls})
	}
	if m.Role == transcript.RoleTool {
		kwargs = append(kwargs, kv{"tool_call_id", m.ToolCallID}, kv{"name", m.Name})
	}
	return obj{{"lc", 1}, {"type", "constructor"}, {"id", []string{"langchain", "schema", "messages", class}}, {"kwargs", kwargs}}
}

// writeLangSmith writes the conversations as a LangSmith run export: per conversation a
// root chain run with the metadata and an llm run per model call, LangChain's
// serialisation in inputs and outputs, runs of all conversations interleaved.
func writeLangSmith(t testing.TB, convs []transcript.Conversation) []byte {
	t.Helper()
	var items []any
	for k := -1; ; k++ {
		added := false
		for ci, c := range convs {
			calls := callsOf(c)
			if k >= len(calls) {
				continue
			}
			added = true
			if k < 0 {
				root := obj{{"id", c.ID}, {"name", "AgentExecutor"}, {"run_type", "chain"}, {"trace_id", c.ID}, {"parent_run_id", nil},
					{"start_time", startOf(ci, 0).Add(-1).Format("2006-01-02T15:04:05.000000")},
					{"inputs", obj{{"input", "the first question"}}}, {"outputs", obj{{"output", "the last answer"}}},
					{"extra", obj{{"metadata", json.RawMessage(orEmpty(c.Metadata))}}}, {"session_id", "project-uuid"}}
				items = append(items, root)
				continue
			}
			in := make([]any, len(calls[k].input))
			for i, m := range calls[k].input {
				in[i] = lcMessage(m)
			}
			run := obj{{"id", fmt.Sprintf("%s-llm-%d", c.ID, k)}, {"name", "ChatOpenAI"}, {"run_type", "llm"}, {"trace_id", c.ID},
				{"parent_run_id", c.ID}, {"start_time", startOf(ci, k).Format("2006-01-02T15:04:05.000000")},
				{"inputs", obj{{"messages", []any{in}}}}, {"extra", obj{{"metadata", obj{{"ls_provider", "openai"}}}}}}
			if calls[k].output != nil {
				m := calls[k].output[0]
				run = append(run, kv{"outputs", obj{{"generations", []any{[]any{obj{{"text", m.Content}, {"type", "ChatGeneration"}, {"message", lcMessage(m)}}}}}}})
			}
			items = append(items, run)
		}
		if !added {
			break
		}
	}
	return lines(t, items)
}
