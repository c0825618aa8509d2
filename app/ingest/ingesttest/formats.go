// Package ingesttest writes conversations in the formats a team's data is exported in
// (Anthropic Messages, OpenTelemetry traces by each convention, Langfuse, LangSmith,
// OpenAI JSONL), the way each exporter writes them, for tests that parse them back and
// compare: the same conversations must give the same result in every format.
package ingesttest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
)

// Writers of the trace-shaped and block-shaped formats, for the cross-format tests. Each
// writes what a real exporter of that format would write for the same conversations;
// arguments go out as JSON objects where the format has objects (Anthropic input, OTel
// arguments, LangChain args), so compactArgs gives what parsing them back yields.

// obj is a JSON object that keeps its keys in the order written.
type obj []kv

type kv struct {
	k string
	v any
}

// appendJSON writes v as JSON: objects in their order, texts with their characters (no
// HTML escaping), raw JSON as it is.
func appendJSON(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case obj:
		b = append(b, '{')
		for i, f := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, f.k)
			b = append(b, ':')
			var err error
			if b, err = appendJSON(b, f.v); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, item := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, item); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case string:
		return appendString(b, x), nil
	case json.RawMessage:
		return append(b, x...), nil
	case nil:
		return append(b, "null"...), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(b, bytes.TrimRight(buf.Bytes(), "\n")...), nil
}

// appendString writes a JSON string without HTML escaping.
func appendString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

// marshal encodes v with appendJSON.
func marshal(v any) ([]byte, error) { return appendJSON(nil, v) }

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := marshal(v)
	require.NoError(t, err)
	return b
}

// lines writes one JSON value per line.
func lines(t testing.TB, items []any) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, it := range items {
		b.Write(mustJSON(t, it))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// args is a call's arguments as the JSON object formats write them.
func args(tc transcript.ToolCall) json.RawMessage {
	if tc.Arguments == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(tc.Arguments)
}

// CompactArgs is what formats that carry arguments as JSON objects give back: the same
// arguments, compact.
func CompactArgs(convs []transcript.Conversation) []transcript.Conversation {
	return Map(convs, func(c *transcript.Conversation) {
		for i := range c.Messages {
			for j := range c.Messages[i].ToolCalls {
				tc := &c.Messages[i].ToolCalls[j]
				var b bytes.Buffer
				if json.Compact(&b, args(*tc)) == nil {
					tc.Arguments = b.String()
				}
			}
		}
	})
}

// toolError is how the formats with an error flag mark a failed tool's result.
func toolError(content string) bool { return len(content) >= 5 && content[:5] == "Error" }

// --- Anthropic Messages ---

func anthropicConversation(c transcript.Conversation) obj {
	out := obj{{"id", c.ID}}
	var msgs []any
	var pendingResults []any
	flush := func() {
		if pendingResults != nil {
			msgs = append(msgs, obj{{"role", "user"}, {"content", pendingResults}})
			pendingResults = nil
		}
	}
	for _, m := range c.Messages {
		switch m.Role {
		case transcript.RoleSystem:
			out = append(out, kv{"system", m.Content})
		case transcript.RoleUser:
			if pendingResults != nil {
				pendingResults = append(pendingResults, obj{{"type", "text"}, {"text", m.Content}})
				flush()
				continue
			}
			msgs = append(msgs, obj{{"role", "user"}, {"content", m.Content}})
		case transcript.RoleAssistant:
			flush()
			blocks := []any{}
			if m.Content != "" {
				blocks = append(blocks, obj{{"type", "text"}, {"text", m.Content}})
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, obj{{"type", "tool_use"}, {"id", tc.ID}, {"name", tc.Name}, {"input", args(tc)}})
			}
			msgs = append(msgs, obj{{"role", "assistant"}, {"content", blocks}})
		case transcript.RoleTool:
			r := obj{{"type", "tool_result"}, {"tool_use_id", m.ToolCallID}, {"content", m.Content}}
			if toolError(m.Content) {
				r = append(r, kv{"is_error", true})
			}
			pendingResults = append(pendingResults, r)
		}
	}
	flush()
	out = append(out, kv{"messages", msgs})
	if len(c.Metadata) > 0 {
		out = append(out, kv{"metadata", c.Metadata})
	}
	return out
}

// Anthropic writes the conversations as Anthropic Messages conversations (top-level
// system, tool_use and tool_result blocks, is_error on failed results), as JSON lines or
// one pretty-printed array.
func Anthropic(t testing.TB, convs []transcript.Conversation, jsonl bool) []byte {
	t.Helper()
	items := make([]any, len(convs))
	for i, c := range convs {
		items[i] = anthropicConversation(c)
	}
	if jsonl {
		return lines(t, items)
	}
	b, err := json.MarshalIndent(json.RawMessage(mustJSON(t, items)), "", "  ")
	require.NoError(t, err)
	return b
}

// --- model calls ---

// modelCall is one call that produced a conversation: everything before an assistant
// message was sent, the message came back.
type modelCall struct {
	input  []transcript.Message
	output []transcript.Message
}

// callsOf splits a conversation into its model calls; messages after the last assistant
// message were sent in a last call that got no answer.
func callsOf(c transcript.Conversation) []modelCall {
	var calls []modelCall
	last := 0
	for i, m := range c.Messages {
		if m.Role == transcript.RoleAssistant {
			calls = append(calls, modelCall{input: c.Messages[:i], output: c.Messages[i : i+1]})
			last = i + 1
		}
	}
	if last < len(c.Messages) || len(calls) == 0 {
		calls = append(calls, modelCall{input: c.Messages})
	}
	return calls
}

// startOf is the start time of a conversation's k-th call.
func startOf(conv, k int) time.Time {
	return time.Date(2024, 5, 15, 10, 0, 0, 0, time.UTC).Add(time.Duration(conv)*time.Hour + time.Duration(k)*time.Second)
}

// hexID is a stable hex id of n bytes for a name.
func hexID(name string, n int) string {
	h := fnv.New128a()
	h.Write([]byte(name))
	return hex.EncodeToString(h.Sum(nil))[:2*n]
}

// --- OpenTelemetry GenAI ---

// otelParts renders a message in the GenAI semantic conventions' shape.
func otelMessage(m transcript.Message) obj {
	parts := []any{}
	if m.Role == transcript.RoleTool {
		parts = append(parts, obj{{"type", "tool_call_response"}, {"id", m.ToolCallID}, {"response", m.Content}})
		return obj{{"role", "tool"}, {"parts", parts}}
	}
	if m.Content != "" {
		parts = append(parts, obj{{"type", "text"}, {"content", m.Content}})
	}
	for _, tc := range m.ToolCalls {
		parts = append(parts, obj{{"type", "tool_call"}, {"id", tc.ID}, {"name", tc.Name}, {"arguments", args(tc)}})
	}
	return obj{{"role", string(m.Role)}, {"parts", parts}}
}

// attr is an OTLP attribute; structured values are written as OTLP AnyValues.
func attr(t testing.TB, key string, value any) obj {
	return obj{{"key", key}, {"value", anyValueOf(t, value)}}
}

// anyValueOf encodes a value as an OTLP AnyValue: strings, numbers and booleans as
// such, JSON (json.RawMessage or obj) structured as arrayValue and kvlistValue.
func anyValueOf(t testing.TB, v any) obj {
	switch x := v.(type) {
	case string:
		return obj{{"stringValue", x}}
	case bool:
		return obj{{"boolValue", x}}
	case int:
		return obj{{"intValue", strconv.Itoa(x)}}
	}
	raw := mustJSON(t, v)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return tokensToAny(t, dec)
}

func tokensToAny(t testing.TB, dec *json.Decoder) obj {
	tok, err := dec.Token()
	require.NoError(t, err)
	switch x := tok.(type) {
	case json.Delim:
		if x == '[' {
			values := []any{}
			for dec.More() {
				values = append(values, tokensToAny(t, dec))
			}
			_, _ = dec.Token()
			return obj{{"arrayValue", obj{{"values", values}}}}
		}
		values := []any{}
		for dec.More() {
			k, err := dec.Token()
			require.NoError(t, err)
			values = append(values, obj{{"key", k.(string)}, {"value", tokensToAny(t, dec)}})
		}
		_, _ = dec.Token()
		return obj{{"kvlistValue", obj{{"values", values}}}}
	case string:
		return obj{{"stringValue", x}}
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return obj{{"intValue", string(x)}}
		}
		return obj{{"doubleValue", json.RawMessage(x)}}
	case bool:
		return obj{{"boolValue", x}}
	}
	return obj{}
}

// otelSpan is a span with attributes and events.
func otelSpan(traceID, name string, start time.Time, attrs []any, events []any) obj {
	s := obj{{"traceId", traceID}, {"spanId", hexID(traceID+name+start.String(), 8)}, {"name", name}, {"kind", 3},
		{"startTimeUnixNano", strconv.FormatInt(start.UnixNano(), 10)}, {"endTimeUnixNano", strconv.FormatInt(start.Add(time.Second/2).UnixNano(), 10)},
		{"attributes", attrs}}
	if events != nil {
		s = append(s, kv{"events", events})
	}
	return s
}

// Convention names the ways spans record a call's messages.
type Convention int

const (
	GenAIText       Convention = iota // gen_ai.*.messages as JSON text, system apart
	GenAIStructured                   // gen_ai.*.messages as structured AnyValues
	OpenInference                     // llm.input_messages.N.message.*
	OpenLLMetry                       // gen_ai.prompt.N.*, gen_ai.completion.N.*
	GenAIEvents                       // the older span events
)

// otelSpansOf writes the spans of one conversation: a chat span per model call, each in a
// trace of its own (one user turn each, as agents trace them), tied by the conversation
// id; for GenAIText the conversation id is on an agent span around them only.
func otelSpansOf(t testing.TB, ci int, c transcript.Conversation, conv Convention) []obj {
	var spans []obj
	for k, call := range callsOf(c) {
		trace := hexID(fmt.Sprint(c.ID, "/", k/3), 16) // three calls a trace
		start := startOf(ci, k)
		var attrs, events []any
		attrs = append(attrs, attr(t, "gen_ai.operation.name", "chat"), attr(t, "gen_ai.provider.name", "openai"), attr(t, "gen_ai.request.model", "gpt-4o"))
		if conv != GenAIText {
			attrs = append(attrs, attr(t, "gen_ai.conversation.id", c.ID))
		}
		if k == 0 && len(c.Metadata) > 0 {
			attrs = append(attrs, attr(t, "metadata", string(c.Metadata)))
		}
		switch conv {
		case GenAIText:
			in, sys := call.input, []transcript.Message(nil)
			if len(in) > 0 && in[0].Role == transcript.RoleSystem {
				sys, in = in[:1], in[1:]
			}
			if sys != nil {
				attrs = append(attrs, attr(t, "gen_ai.system_instructions", string(mustJSON(t, []any{obj{{"type", "text"}, {"content", sys[0].Content}}}))))
			}
			attrs = append(attrs, attr(t, "gen_ai.input.messages", string(mustJSON(t, otelMessages(in)))))
			if call.output != nil {
				attrs = append(attrs, attr(t, "gen_ai.output.messages", string(mustJSON(t, otelMessages(call.output)))))
			}
		case GenAIStructured:
			attrs = append(attrs, attr(t, "gen_ai.input.messages", otelMessages(call.input)))
			if call.output != nil {
				attrs = append(attrs, attr(t, "gen_ai.output.messages", otelMessages(call.output)))
			}
		case OpenInference:
			attrs = append(attrs, attr(t, "openinference.span.kind", "LLM"))
			attrs = append(attrs, oiAttrs(t, "llm.input_messages", call.input)...)
			attrs = append(attrs, oiAttrs(t, "llm.output_messages", call.output)...)
		case OpenLLMetry:
			attrs = append(attrs, attr(t, "llm.request.type", "chat"))
			attrs = append(attrs, traceloopAttrs(t, "gen_ai.prompt", call.input)...)
			attrs = append(attrs, traceloopAttrs(t, "gen_ai.completion", call.output)...)
		case GenAIEvents:
			for _, m := range call.input {
				events = append(events, eventOf(t, start, m, false))
			}
			for _, m := range call.output {
				events = append(events, eventOf(t, start, m, true))
			}
		}
		spans = append(spans, otelSpan(trace, "chat gpt-4o", start, attrs, events))
		if conv == GenAIText && k%3 == 0 {
			agent := otelSpan(trace, "invoke_agent support", start.Add(-time.Millisecond), []any{
				attr(t, "gen_ai.operation.name", "invoke_agent"), attr(t, "gen_ai.conversation.id", c.ID),
				attr(t, "gen_ai.input.messages", string(mustJSON(t, otelMessages(call.input[len(call.input)-1:])))),
			}, nil)
			spans = append(spans, agent) // written after its children, as exporters do
		}
	}
	return spans
}

func otelMessages(msgs []transcript.Message) []any {
	out := make([]any, len(msgs))
	for i, m := range msgs {
		out[i] = otelMessage(m)
	}
	return out
}

// oiAttrs flattens messages as OpenInference does.
func oiAttrs(t testing.TB, prefix string, msgs []transcript.Message) []any {
	var out []any
	for i, m := range msgs {
		p := fmt.Sprintf("%s.%d.message.", prefix, i)
		out = append(out, attr(t, p+"role", string(m.Role)))
		if m.Content != "" || len(m.ToolCalls) == 0 {
			out = append(out, attr(t, p+"content", m.Content))
		}
		if m.ToolCallID != "" {
			out = append(out, attr(t, p+"tool_call_id", m.ToolCallID))
		}
		if m.Name != "" {
			out = append(out, attr(t, p+"name", m.Name))
		}
		for j, tc := range m.ToolCalls {
			q := fmt.Sprintf("%stool_calls.%d.tool_call.", p, j)
			out = append(out, attr(t, q+"id", tc.ID), attr(t, q+"function.name", tc.Name), attr(t, q+"function.arguments", tc.Arguments))
		}
	}
	return out
}

// traceloopAttrs flattens messages as OpenLLMetry does.
func traceloopAttrs(t testing.TB, prefix string, msgs []transcript.Message) []any {
	var out []any
	for i, m := range msgs {
		p := fmt.Sprintf("%s.%d.", prefix, i)
		out = append(out, attr(t, p+"role", string(m.Role)))
		if m.Content != "" || len(m.ToolCalls) == 0 {
			out = append(out, attr(t, p+"content", m.Content))
		}
		if m.ToolCallID != "" {
			out = append(out, attr(t, p+"tool_call_id", m.ToolCallID))
		}
		for j, tc := range m.ToolCalls {
			q := fmt.Sprintf("%stool_calls.%d.", p, j)
			out = append(out, attr(t, q+"id", tc.ID), attr(t, q+"name", tc.Name), attr(t, q+"arguments", tc.Arguments))
		}
	}
	return out
}

// eventOf writes a message as an event of the older GenAI conventions.
func eventOf(t testing.TB, at time.Time, m transcript.Message, choice bool) obj {
	name := "gen_ai." + string(m.Role) + ".message"
	var attrs []any
	calls := func() string { return string(mustJSON(t, OpenAICalls(m.ToolCalls))) }
	switch {
	case choice:
		name = "gen_ai.choice"
		body := obj{{"role", "assistant"}, {"content", m.Content}}
		if len(m.ToolCalls) > 0 {
			body = append(body, kv{"tool_calls", json.RawMessage(calls())})
		}
		attrs = append(attrs, attr(t, "index", 0), attr(t, "finish_reason", "stop"), attr(t, "message", string(mustJSON(t, body))))
	case m.Role == transcript.RoleTool:
		attrs = append(attrs, attr(t, "content", m.Content), attr(t, "id", m.ToolCallID))
	default:
		attrs = append(attrs, attr(t, "content", m.Content))
		if len(m.ToolCalls) > 0 {
			attrs = append(attrs, attr(t, "tool_calls", calls()))
		}
	}
	return obj{{"timeUnixNano", strconv.FormatInt(at.UnixNano(), 10)}, {"name", name}, {"attributes", attrs}}
}

// request wraps spans in one OTLP ExportTraceServiceRequest.
func request(spans []any) obj {
	return obj{{"resourceSpans", []any{obj{
		{"resource", obj{{"attributes", []any{obj{{"key", "service.name"}, {"value", obj{{"stringValue", "support-agent"}}}}}}}},
		{"scopeSpans", []any{obj{{"scope", obj{{"name", "opentelemetry.instrumentation.openai"}}}, {"spans", spans}}}},
	}}}}
}

// OTLP writes every conversation's spans by the convention given, interleaved across
// conversations as a collector writes batches of whatever ended together, and not in
// time order: as JSON lines of requests of batch spans each, or as one pretty-printed
// document.
func OTLP(t testing.TB, convs []transcript.Conversation, conv Convention, jsonl bool, batch int) []byte {
	t.Helper()
	perConv := make([][]obj, len(convs))
	for i, c := range convs {
		spans := otelSpansOf(t, i, c, conv)
		// Each pair of spans is written later one first, so reading must sort by time.
		for j := 0; j+1 < len(spans); j += 2 {
			spans[j], spans[j+1] = spans[j+1], spans[j]
		}
		perConv[i] = spans
	}
	var all []any
	for k := 0; ; k++ {
		added := false
		for i := range perConv {
			if k < len(perConv[i]) {
				all = append(all, perConv[i][k])
				added = true
			}
		}
		if !added {
			break
		}
	}
	if jsonl {
		var reqs []any
		for i := 0; i < len(all); i += batch {
			reqs = append(reqs, request(all[i:min(i+batch, len(all))]))
		}
		return lines(t, reqs)
	}
	b, err := json.MarshalIndent(json.RawMessage(mustJSON(t, request(all))), "", " ")
	require.NoError(t, err)
	return b
}

// openAIMessages renders messages as OpenAI's chat request does, which is what the
// Langfuse OpenAI integration records as a generation's input.
func openAIMessages(msgs []transcript.Message) []any {
	out := make([]any, len(msgs))
	for i, m := range msgs {
		out[i] = ToOpenAI(transcript.Conversation{Messages: []transcript.Message{m}}).Messages[0]
	}
	return out
}

// LangfuseTraces writes the conversations as Langfuse trace downloads, one per line:
// each conversation a session of traces (four model calls each), each trace with its
// generations nested and the metadata on the trace.
func LangfuseTraces(t testing.TB, convs []transcript.Conversation) []byte {
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

// LangfuseBlob writes the generations as Langfuse's blob-storage export of enriched
// observations does: snake_case fields, input and output as JSON text, the trace's
// session on every row, rows of all conversations interleaved.
func LangfuseBlob(t testing.TB, convs []transcript.Conversation) []byte {
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

// LangSmith writes the conversations as a LangSmith run export: per conversation a root
// chain run with the metadata and an llm run per model call, LangChain's serialisation
// in inputs and outputs, runs of all conversations interleaved.
func LangSmith(t testing.TB, convs []transcript.Conversation) []byte {
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

// OpenAIConversation is the OpenAI export shape the tests write.
type OpenAIConversation struct {
	ConversationID string          `json:"conversation_id,omitempty"`
	Messages       []OpenAIMessage `json:"messages"`
	Metadata       json.RawMessage `json:"metadata,omitempty"`
}

type OpenAIMessage struct {
	Role       string           `json:"role"`
	Content    *string          `json:"content"`
	Name       string           `json:"name,omitempty"`
	ToolCalls  []OpenAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type OpenAIToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// ToOpenAI renders a conversation in the OpenAI export shape; an assistant message with
// tool calls and no text gets "content": null, as OpenAI writes it.
func ToOpenAI(c transcript.Conversation) OpenAIConversation {
	out := OpenAIConversation{ConversationID: c.ID, Metadata: c.Metadata}
	for _, m := range c.Messages {
		om := OpenAIMessage{Role: string(m.Role), Name: m.Name, ToolCallID: m.ToolCallID, ToolCalls: OpenAICalls(m.ToolCalls)}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			om.Content = &m.Content
		}
		out.Messages = append(out.Messages, om)
	}
	return out
}

// OpenAICalls renders tool calls in OpenAI's nested shape.
func OpenAICalls(calls []transcript.ToolCall) []OpenAIToolCall {
	var out []OpenAIToolCall
	for _, tc := range calls {
		oc := OpenAIToolCall{ID: tc.ID, Type: "function"}
		oc.Function.Name, oc.Function.Arguments = tc.Name, tc.Arguments
		out = append(out, oc)
	}
	return out
}

// Map returns deep copies of convs changed by f.
func Map(convs []transcript.Conversation, f func(*transcript.Conversation)) []transcript.Conversation {
	out := make([]transcript.Conversation, len(convs))
	for i, c := range convs {
		c.Messages = append([]transcript.Message(nil), c.Messages...)
		for j := range c.Messages {
			c.Messages[j].ToolCalls = append([]transcript.ToolCall(nil), c.Messages[j].ToolCalls...)
		}
		f(&c)
		out[i] = c
	}
	return out
}

// OpenAIJSONL writes the conversations as OpenAI chat JSONL, one per line.
func OpenAIJSONL(t testing.TB, convs []transcript.Conversation) []byte {
	t.Helper()
	items := make([]any, len(convs))
	for i, c := range convs {
		items[i] = ToOpenAI(c)
	}
	return lines(t, items)
}
