package ingest_test

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

	"github.com/checkup-dev/checkup/workers/transcript"
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

// compactArgs is what formats that carry arguments as JSON objects give back: the same
// arguments, compact.
func compactArgs(convs []transcript.Conversation) []transcript.Conversation {
	return mapConvs(convs, func(c *transcript.Conversation) {
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

func writeAnthropic(t testing.TB, convs []transcript.Conversation, jsonl bool) []byte {
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

// otelConvention names the ways spans record a call's messages.
type otelConvention int

const (
	semconvText       otelConvention = iota // gen_ai.*.messages as JSON text, system apart
	semconvStructured                       // gen_ai.*.messages as structured AnyValues
	openInference
	openLLMetry
	genAIEvents // the older span events
)

// otelSpansOf writes the spans of one conversation: a chat span per model call, each in a
// trace of its own (one user turn each, as agents trace them), tied by the conversation
// id; for semconvText the conversation id is on an agent span around them only.
func otelSpansOf(t testing.TB, ci int, c transcript.Conversation, conv otelConvention) []obj {
	var spans []obj
	for k, call := range callsOf(c) {
		trace := hexID(fmt.Sprint(c.ID, "/", k/3), 16) // three calls a trace
		start := startOf(ci, k)
		var attrs, events []any
		attrs = append(attrs, attr(t, "gen_ai.operation.name", "chat"), attr(t, "gen_ai.provider.name", "openai"), attr(t, "gen_ai.request.model", "gpt-4o"))
		if conv != semconvText {
			attrs = append(attrs, attr(t, "gen_ai.conversation.id", c.ID))
		}
		if k == 0 && len(c.Metadata) > 0 {
			attrs = append(attrs, attr(t, "metadata", string(c.Metadata)))
		}
		switch conv {
		case semconvText:
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
		case semconvStructured:
			attrs = append(attrs, attr(t, "gen_ai.input.messages", otelMessages(call.input)))
			if call.output != nil {
				attrs = append(attrs, attr(t, "gen_ai.output.messages", otelMessages(call.output)))
			}
		case openInference:
			attrs = append(attrs, attr(t, "openinference.span.kind", "LLM"))
			attrs = append(attrs, oiAttrs(t, "llm.input_messages", call.input)...)
			attrs = append(attrs, oiAttrs(t, "llm.output_messages", call.output)...)
		case openLLMetry:
			attrs = append(attrs, attr(t, "llm.request.type", "chat"))
			attrs = append(attrs, traceloopAttrs(t, "gen_ai.prompt", call.input)...)
			attrs = append(attrs, traceloopAttrs(t, "gen_ai.completion", call.output)...)
		case genAIEvents:
			for _, m := range call.input {
				events = append(events, eventOf(t, start, m, false))
			}
			for _, m := range call.output {
				events = append(events, eventOf(t, start, m, true))
			}
		}
		spans = append(spans, otelSpan(trace, "chat gpt-4o", start, attrs, events))
		if conv == semconvText && k%3 == 0 {
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
	calls := func() string { return string(mustJSON(t, oaCalls(m.ToolCalls))) }
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

// writeOTLP writes every conversation's spans, interleaved across conversations as a
// collector writes batches of whatever ended together, and not in time order: as JSON
// lines of requests of batch spans each, or as one pretty-printed document.
func writeOTLP(t testing.TB, convs []transcript.Conversation, conv otelConvention, jsonl bool, batch int) []byte {
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
