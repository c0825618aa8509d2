package ingest

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/checkup-dev/checkup/db/transcript"
)

// otelSpan files the model call a span records. The span's messages are read from the
// first convention that has them:
//
//   - OpenTelemetry GenAI semantic conventions: gen_ai.system_instructions,
//     gen_ai.input.messages and gen_ai.output.messages (role and parts: text, tool_call,
//     tool_call_response), as attributes or on a gen_ai.client.inference.operation.details
//     event, structured or as JSON text;
//   - OpenLLMetry (Traceloop): gen_ai.prompt.N.* and gen_ai.completion.N.*;
//   - OpenInference (Arize): llm.input_messages.N.message.* and llm.output_messages.N.*;
//   - older GenAI conventions: gen_ai.prompt and gen_ai.completion (JSON text), or the
//     events gen_ai.system.message, gen_ai.user.message, gen_ai.assistant.message,
//     gen_ai.tool.message and gen_ai.choice.
//
// A span is a model call when gen_ai.operation.name says chat, text_completion or
// generate_content, openinference.span.kind says LLM, or it carries OpenLLMetry's or
// OpenInference's per-message attributes; another span with messages (an agent
// invocation) is read only when its trace has no model call. The conversation is
// gen_ai.conversation.id (or session.id, langfuse.session.id) of any span of the trace,
// else the trace; metadata is OpenInference's "metadata" attribute.
func (p *parser) otelSpan(a *assembler, line int, sp *otlpSpan) error {
	a.records++
	attrs := attributes(sp.Attributes)
	r := newMessageReader(p, lineLoc(line))
	start := sp.Start
	if len(start) == 0 {
		start = sp.StartSnake
	}
	c := llmCall{kind: callMeta, line: line, at: unixNanos(start), metadata: jsonObject(attrs["metadata"])}
	c.system = r.systemOf(attrs["gen_ai.system_instructions"])
	c.input = r.otelInput(attrs, sp.Events)
	c.output = firstChoice(r.otelOutput(attrs, sp.Events))
	if len(c.system) == 0 {
		c.system = r.detailsSystem(sp.Events)
	}
	switch {
	case isModelSpan(attrs):
		c.kind = callModel
	case len(c.system)+len(c.input)+len(c.output) > 0:
		c.kind = callTop
	}
	conv := ""
	for _, k := range []string{"gen_ai.conversation.id", "session.id", "langfuse.session.id"} {
		if conv = attrString(attrs, k); conv != "" {
			break
		}
	}
	if c.kind == callMeta && conv == "" && c.metadata == nil {
		return nil // another operation of the trace (an HTTP call, a retrieval)
	}
	trace := sp.TraceID
	if trace == "" {
		trace = sp.TraceIDSnake
	}
	if trace == "" {
		trace = "\x00span " + sp.SpanID
	}
	return a.add(trace, conv, &c)
}

// isModelSpan reports whether a span is a call to a model.
func isModelSpan(attrs map[string]json.RawMessage) bool {
	switch strings.ToLower(attrString(attrs, "gen_ai.operation.name")) {
	case "chat", "text_completion", "generate_content", "completion":
		return true
	}
	if strings.EqualFold(attrString(attrs, "openinference.span.kind"), "LLM") {
		return true
	}
	if _, ok := attrs["llm.request.type"]; ok {
		return true
	}
	for k := range attrs {
		if strings.HasPrefix(k, "gen_ai.prompt.") || strings.HasPrefix(k, "gen_ai.completion.") ||
			strings.HasPrefix(k, "llm.input_messages.") || strings.HasPrefix(k, "llm.output_messages.") {
			return true
		}
	}
	return false
}

// otelInput reads the messages sent to the model.
func (r *messageReader) otelInput(attrs map[string]json.RawMessage, events []otlpEvent) []transcript.Message {
	if msgs, ok := r.messagesOf(attrs["gen_ai.input.messages"], transcript.RoleUser); ok {
		return msgs
	}
	if msgs := r.traceloopMessages(attrs, "gen_ai.prompt.", false); len(msgs) > 0 {
		return msgs
	}
	if msgs := r.openInferenceMessages(attrs, "llm.input_messages.", false); len(msgs) > 0 {
		return msgs
	}
	if msgs, ok := r.messagesOf(attrs["gen_ai.prompt"], transcript.RoleUser); ok {
		return msgs
	}
	var out []transcript.Message
	for _, ev := range events {
		ea := attributes(ev.Attributes)
		switch ev.Name {
		case "gen_ai.client.inference.operation.details":
			if msgs, ok := r.messagesOf(ea["gen_ai.input.messages"], transcript.RoleUser); ok {
				out = append(out, msgs...)
			}
		case "gen_ai.system.message", "gen_ai.user.message", "gen_ai.assistant.message", "gen_ai.tool.message":
			out = append(out, r.eventMessage(ev.Name, ea)...)
		case "gen_ai.content.prompt":
			if msgs, ok := r.messagesOf(ea["gen_ai.prompt"], transcript.RoleUser); ok {
				out = append(out, msgs...)
			}
		}
	}
	return out
}

// otelOutput reads the messages the model returned.
func (r *messageReader) otelOutput(attrs map[string]json.RawMessage, events []otlpEvent) []transcript.Message {
	if msgs, ok := r.messagesOf(attrs["gen_ai.output.messages"], transcript.RoleAssistant); ok {
		return msgs
	}
	if msgs := r.traceloopMessages(attrs, "gen_ai.completion.", true); len(msgs) > 0 {
		return msgs
	}
	if msgs := r.openInferenceMessages(attrs, "llm.output_messages.", true); len(msgs) > 0 {
		return msgs
	}
	if msgs, ok := r.messagesOf(attrs["gen_ai.completion"], transcript.RoleAssistant); ok {
		return msgs
	}
	for _, ev := range events {
		ea := attributes(ev.Attributes)
		switch ev.Name {
		case "gen_ai.client.inference.operation.details":
			if msgs, ok := r.messagesOf(ea["gen_ai.output.messages"], transcript.RoleAssistant); ok {
				return msgs
			}
		case "gen_ai.choice":
			if idx, ok := ea["index"]; ok && strings.Trim(string(idx), `"`) != "0" {
				continue // another choice than the first
			}
			return r.eventMessage(ev.Name, ea)
		case "gen_ai.content.completion":
			if msgs, ok := r.messagesOf(ea["gen_ai.completion"], transcript.RoleAssistant); ok {
				return msgs
			}
		}
	}
	return nil
}

// detailsSystem reads system instructions from a gen_ai.client.inference.operation.details event.
func (r *messageReader) detailsSystem(events []otlpEvent) []transcript.Message {
	for _, ev := range events {
		if ev.Name == "gen_ai.client.inference.operation.details" {
			if sys := r.systemOf(attributes(ev.Attributes)["gen_ai.system_instructions"]); len(sys) > 0 {
				return sys
			}
		}
	}
	return nil
}

// eventMessage reads a message event of the older GenAI conventions, whose body fields
// (content, role, tool_calls, id; message for a choice) are the event's attributes, or
// whose whole body is one attribute holding JSON.
func (r *messageReader) eventMessage(name string, attrs map[string]json.RawMessage) []transcript.Message {
	role := map[string]transcript.Role{
		"gen_ai.system.message": transcript.RoleSystem, "gen_ai.user.message": transcript.RoleUser,
		"gen_ai.assistant.message": transcript.RoleAssistant, "gen_ai.tool.message": transcript.RoleTool,
		"gen_ai.choice": transcript.RoleAssistant,
	}[name]
	for _, k := range []string{"gen_ai.event.content", "body", "message"} {
		if msgs, ok := r.messagesOf(attrs[k], role); ok {
			return msgs
		}
	}
	m := anyMessage{Role: attrString(attrs, "role"), Content: jsonTextValue(attrs["content"])}
	if raw := attrs["tool_calls"]; len(raw) > 0 {
		if raw[0] == '"' {
			raw = json.RawMessage(jsonString(raw))
		}
		_ = json.Unmarshal(raw, &m.ToolCalls)
	}
	for _, k := range []string{"id", "tool_call_id", "gen_ai.tool.call.id"} {
		if m.ToolCallID = attrString(attrs, k); m.ToolCallID != "" {
			break
		}
	}
	if m.Role == "" {
		m.Role = string(role)
	}
	if m.Content == nil && m.ToolCalls == nil && m.ToolCallID == "" {
		return nil
	}
	return r.message(&m, role)
}

// jsonTextValue returns the array a string attribute holds when it is a list of content
// blocks or of tool calls (exporters write lists as JSON text), and the value itself
// otherwise: a text that merely is JSON (a tool's result) stays text.
func jsonTextValue(raw json.RawMessage) json.RawMessage {
	if len(raw) > 0 && raw[0] == '"' {
		if s := strings.TrimSpace(jsonString(raw)); strings.HasPrefix(s, "[") {
			if _, ok := contentBlocks(json.RawMessage(s)); ok {
				return json.RawMessage(s)
			}
		}
	}
	return raw
}

// flattened groups the attributes under prefix by their index: prefix+"3.role" is
// field "role" of item 3. Items are returned in index order.
func flattened(attrs map[string]json.RawMessage, prefix string) []map[string]json.RawMessage {
	byIndex := map[int]map[string]json.RawMessage{}
	for k, v := range attrs {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		num, field, ok := strings.Cut(rest, ".")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n < 0 {
			continue
		}
		if byIndex[n] == nil {
			byIndex[n] = map[string]json.RawMessage{}
		}
		byIndex[n][field] = v
	}
	idx := make([]int, 0, len(byIndex))
	for n := range byIndex {
		idx = append(idx, n)
	}
	sort.Ints(idx)
	out := make([]map[string]json.RawMessage, len(idx))
	for i, n := range idx {
		out[i] = byIndex[n]
	}
	return out
}

// traceloopMessages reads OpenLLMetry's gen_ai.prompt.N.{role, content, tool_call_id,
// tool_calls.M.{id, name, arguments}} (and gen_ai.completion.N.*, of which only the
// first choice when first is set).
func (r *messageReader) traceloopMessages(attrs map[string]json.RawMessage, prefix string, first bool) []transcript.Message {
	items := flattened(attrs, prefix)
	var out []transcript.Message
	for i, f := range items {
		if first && i > 0 {
			break
		}
		m := anyMessage{Role: attrString(f, "role"), Content: jsonTextValue(f["content"]), ToolCallID: attrString(f, "tool_call_id"), Name: attrString(f, "name")}
		for _, call := range flattened(f, "tool_calls.") {
			m.ToolCalls = append(m.ToolCalls, anyToolCall{ID: idText{text: attrString(call, "id")}, Name: attrString(call, "name"), Arguments: argText(attrString(call, "arguments"))})
		}
		if name := attrString(f, "function_call.name"); name != "" {
			m.FunctionCall = &oaFunction{Name: name, Arguments: argText(attrString(f, "function_call.arguments"))}
		}
		as := transcript.RoleUser
		if first {
			as = transcript.RoleAssistant
		}
		out = append(out, r.message(&m, as)...)
	}
	return out
}

// openInferenceMessages reads OpenInference's llm.input_messages.N.message.{role,
// content, contents.K.message_content.{type, text}, name, tool_call_id,
// tool_calls.M.tool_call.{id, function.name, function.arguments}}.
func (r *messageReader) openInferenceMessages(attrs map[string]json.RawMessage, prefix string, first bool) []transcript.Message {
	items := flattened(attrs, prefix)
	var out []transcript.Message
	for i, f := range items {
		if first && i > 0 {
			break
		}
		get := func(k string) string { return attrString(f, "message."+k) }
		m := anyMessage{Role: get("role"), ToolCallID: get("tool_call_id"), Name: get("name")}
		if raw, ok := f["message.content"]; ok {
			m.Content = raw
		}
		if parts := flattened(f, "message.contents."); len(parts) > 0 {
			var blocks []byte
			blocks = append(blocks, '[')
			for j, part := range parts {
				if j > 0 {
					blocks = append(blocks, ',')
				}
				b, _ := json.Marshal(map[string]string{"type": attrString(part, "message_content.type"), "text": attrString(part, "message_content.text")})
				blocks = append(blocks, b...)
			}
			m.Content = append(blocks, ']')
		}
		for _, call := range flattened(f, "message.tool_calls.") {
			m.ToolCalls = append(m.ToolCalls, anyToolCall{
				ID:        idText{text: attrString(call, "tool_call.id")},
				Name:      attrString(call, "tool_call.function.name"),
				Arguments: argText(attrString(call, "tool_call.function.arguments")),
			})
		}
		as := transcript.RoleUser
		if first {
			as = transcript.RoleAssistant
		}
		out = append(out, r.message(&m, as)...)
	}
	return out
}
