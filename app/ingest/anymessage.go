package ingest

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
)

// anyMessage is a chat message as the trace exports record what was sent to a model and
// what came back: OpenAI's chat messages, Anthropic's, OpenTelemetry GenAI messages
// (role and parts), LangChain messages (type human/ai/system/tool, or serialised as
// {"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs": {...}}), an
// OpenAI choice or a LangChain generation ({"message": ...}).
type anyMessage struct {
	Role             string          `json:"role"`
	Type             string          `json:"type"`
	Content          json.RawMessage `json:"content"`
	Parts            []block         `json:"parts"`
	ToolCalls        []anyToolCall   `json:"tool_calls"`
	ToolCallID       string          `json:"tool_call_id"`
	Name             string          `json:"name"`
	FunctionCall     *oaFunction     `json:"function_call"`
	Kwargs           *anyMessage     `json:"kwargs"`
	ID               json.RawMessage `json:"id"`
	AdditionalKwargs *anyMessage     `json:"additional_kwargs"`
	Status           string          `json:"status"`
	Message          *anyMessage     `json:"message"`
	Text             *string         `json:"text"`
}

// anyToolCall is a tool call in OpenAI's shape ({"id", "function": {"name",
// "arguments"}}), flattened ({"name", "arguments"}) or LangChain's ({"name", "args",
// "id"}).
type anyToolCall struct {
	ID        idText     `json:"id"`
	Function  oaFunction `json:"function"`
	Name      string     `json:"name"`
	Arguments argText    `json:"arguments"`
	Args      argText    `json:"args"`
}

func (tc *anyToolCall) call() transcript.ToolCall {
	c := transcript.ToolCall{ID: tc.ID.text, Name: tc.Function.Name, Arguments: string(tc.Function.Arguments)}
	if c.Name == "" {
		c.Name = tc.Name
	}
	if c.Arguments == "" {
		c.Arguments = string(tc.Arguments)
	}
	if c.Arguments == "" {
		c.Arguments = string(tc.Args)
	}
	return c
}

// role resolves the message's role from whichever field its dialect uses; as is the
// role assumed when nothing says.
func (m *anyMessage) role(as transcript.Role) (transcript.Role, bool) {
	if m.Role != "" {
		return anyRole(m.Role)
	}
	switch strings.ToLower(m.Type) {
	case "human", "humanmessage", "humanmessagechunk":
		return transcript.RoleUser, true
	case "ai", "aimessage", "aimessagechunk":
		return transcript.RoleAssistant, true
	case "system", "systemmessage":
		return transcript.RoleSystem, true
	case "tool", "toolmessage", "function", "functionmessage":
		return transcript.RoleTool, true
	case "":
		return as, true
	}
	return anyRole(m.Type)
}

// lcClass is the class name of a serialised LangChain object ("AIMessage"), or "".
func (m *anyMessage) lcClass() string {
	if len(m.ID) == 0 || m.ID[0] != '[' {
		return ""
	}
	var path []string
	if json.Unmarshal(m.ID, &path) != nil || len(path) == 0 {
		return ""
	}
	return path[len(path)-1]
}

// messageReader converts the messages of one record, counting skipped blocks at its
// location.
type messageReader struct {
	p   *parser
	x   *expander
	loc locale.Text
}

func newMessageReader(p *parser, loc locale.Text) *messageReader {
	return &messageReader{p: p, x: newExpander(p, loc), loc: loc}
}

// maxNesting bounds how deep messagesOf looks into wrappers, so a hostile value cannot
// recurse without end.
const maxNesting = 8

// messagesOf reads the messages held by a recorded input or output, whatever its shape:
// a list of messages (or of LangChain batches, [[...]], of which the first), one
// message, an object holding them ({"messages": ...}, {"choices": [{"message": ...}]},
// {"generations": [[...]]}, {"input": ...}, {"output": ...}), a JSON text of any of
// these, or plain text, which is one message of role as. ok is false when the value
// holds no messages.
func (r *messageReader) messagesOf(raw json.RawMessage, as transcript.Role) ([]transcript.Message, bool) {
	return r.messagesAt(raw, as, 0)
}

func (r *messageReader) messagesAt(raw json.RawMessage, as transcript.Role, depth int) ([]transcript.Message, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || depth > maxNesting {
		return nil, false
	}
	switch raw[0] {
	case '"':
		s := jsonString(raw)
		if t := strings.TrimSpace(s); t != "" && (t[0] == '[' || t[0] == '{') {
			if msgs, ok := r.messagesAt(json.RawMessage(t), as, depth+1); ok {
				return msgs, true
			}
		}
		if s == "" {
			return nil, false
		}
		return []transcript.Message{{Role: as, Content: s}}, true
	case '[':
		if inner := bytes.TrimLeft(raw[1:], " \t\r\n"); len(inner) > 0 && inner[0] == '{' {
			if msgs, ok := r.objectList(raw, as); ok {
				return msgs, true
			}
		}
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
			return nil, false
		}
		if first := bytes.TrimSpace(items[0]); len(first) > 0 && first[0] == '[' {
			return r.messagesAt(first, as, depth+1) // a batch of one conversation
		}
		var out []transcript.Message
		for _, it := range items {
			msgs, ok := r.messagesAt(it, as, depth+1)
			if ok {
				out = append(out, msgs...)
			}
		}
		return out, len(out) > 0
	case '{':
		return r.objectMessages(raw, as, depth)
	}
	return nil, false
}

// objectList reads the common case of a list of message objects in one decode; false
// sends the caller to the general path (a list of strings, of lists, of wrappers).
func (r *messageReader) objectList(raw json.RawMessage, as transcript.Role) ([]transcript.Message, bool) {
	var items []anyMessage
	if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return nil, false
	}
	for i := range items {
		if !items[i].isMessage() {
			return nil, false
		}
	}
	var out []transcript.Message
	for i := range items {
		out = append(out, r.message(&items[i], as)...)
	}
	return out, true
}

// wrapperKeys holds the object keys whose value holds the messages, in the order tried.
type wrapperKeys struct {
	Messages    json.RawMessage `json:"messages"`
	Choices     json.RawMessage `json:"choices"`
	Generations json.RawMessage `json:"generations"`
	Input       json.RawMessage `json:"input"`
	Output      json.RawMessage `json:"output"`
	Prompts     json.RawMessage `json:"prompts"`
}

// objectShape reads an object as a message and as a wrapper at once, in one decode.
type objectShape struct {
	anyMessage
	wrapperKeys
}

func (r *messageReader) objectMessages(raw json.RawMessage, as transcript.Role, depth int) ([]transcript.Message, bool) {
	var o objectShape
	if json.Unmarshal(raw, &o) != nil {
		return nil, false
	}
	if m := &o.anyMessage; m.isMessage() {
		return r.message(m, as), true
	}
	w := &o.wrapperKeys
	for _, inner := range []json.RawMessage{w.Messages, w.Choices, w.Generations, w.Prompts, w.Input, w.Output} {
		if msgs, ok := r.messagesAt(inner, as, depth+1); ok {
			if len(w.Choices) > 0 || len(w.Generations) > 0 {
				msgs = firstChoice(msgs)
			}
			return msgs, true
		}
	}
	return nil, false
}

// firstChoice keeps the first of several alternative replies.
func firstChoice(msgs []transcript.Message) []transcript.Message {
	if len(msgs) > 1 && msgs[0].Role == transcript.RoleAssistant && msgs[1].Role == transcript.RoleAssistant {
		return msgs[:1]
	}
	return msgs
}

// isMessage reports whether the object is a message rather than a wrapper of messages.
func (m *anyMessage) isMessage() bool {
	return m.Role != "" || m.Parts != nil || m.Kwargs != nil || m.Message != nil || m.Text != nil ||
		m.Content != nil || m.ToolCalls != nil
}

// message converts one message of any dialect; it may become several (a message of
// tool results becomes one tool message each).
func (r *messageReader) message(m *anyMessage, as transcript.Role) []transcript.Message {
	switch {
	case m.Kwargs != nil && m.Role == "":
		k := *m.Kwargs
		if k.Type == "" && k.Role == "" {
			k.Type = m.lcClass()
		}
		return r.message(&k, as)
	case m.Message != nil:
		return r.message(m.Message, transcript.RoleAssistant)
	}
	role, ok := m.role(as)
	if !ok {
		role = as
	}
	var msgs []transcript.Message
	switch {
	case m.Parts != nil:
		msgs = r.x.expand(role, m.Parts)
	case len(m.Content) > 0 && m.Content[0] == '[':
		if blocks, ok := contentBlocks(m.Content); ok {
			msgs = r.x.expand(role, blocks)
		} else {
			msgs = []transcript.Message{{Role: role, Content: rawText(m.Content)}}
		}
	case len(m.Content) > 0:
		msgs = []transcript.Message{{Role: role, Content: rawText(m.Content)}}
	case m.Text != nil:
		msgs = []transcript.Message{{Role: role, Content: *m.Text}}
	default:
		msgs = []transcript.Message{{Role: role}}
	}
	calls := m.ToolCalls
	if len(calls) == 0 && m.AdditionalKwargs != nil {
		calls = m.AdditionalKwargs.ToolCalls
	}
	fc := m.FunctionCall
	if fc == nil && m.AdditionalKwargs != nil {
		fc = m.AdditionalKwargs.FunctionCall
	}
	if len(calls) > 0 || (fc != nil && fc.Name != "") {
		last := &msgs[len(msgs)-1]
		if last.Role != role || role != transcript.RoleAssistant {
			msgs = append(msgs, transcript.Message{Role: transcript.RoleAssistant})
			last = &msgs[len(msgs)-1]
		}
		for i := range calls {
			call := calls[i].call()
			if call.Name == "" {
				r.p.problem(r.loc, "ingest.unnamed_call")
			}
			last.ToolCalls = append(last.ToolCalls, call)
		}
		if fc != nil && fc.Name != "" {
			last.ToolCalls = append(last.ToolCalls, transcript.ToolCall{Name: fc.Name, Arguments: string(fc.Arguments)})
		}
	}
	if role == transcript.RoleTool && len(msgs) == 1 {
		t := &msgs[0]
		if t.ToolCallID == "" {
			t.ToolCallID = m.ToolCallID
		}
		if t.Name == "" {
			t.Name = m.Name
		}
		if strings.EqualFold(m.Status, "error") {
			t.Content = errorText(t.Content)
		}
	}
	return msgs
}

// contentBlocks reads a list of content blocks: every element an object with a type or
// a text (or a Bedrock toolUse/toolResult). A tool's result that is a JSON list of
// records is not one.
func contentBlocks(raw json.RawMessage) ([]block, bool) {
	var blocks []block
	if json.Unmarshal(raw, &blocks) != nil || len(blocks) == 0 {
		return nil, false
	}
	for i := range blocks {
		b := &blocks[i]
		if b.Type == "" && b.Text == "" && b.ToolUse == nil && b.ToolResult == nil {
			return nil, false
		}
	}
	return blocks, true
}

// systemOf reads system instructions recorded apart from the messages: a list of parts
// (OTel gen_ai.system_instructions), a string, or a JSON text of either.
func (r *messageReader) systemOf(raw json.RawMessage) []transcript.Message {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		s := jsonString(raw)
		if t := strings.TrimSpace(s); strings.HasPrefix(t, "[") && json.Valid([]byte(t)) {
			raw = json.RawMessage(t)
		} else if s != "" {
			return []transcript.Message{{Role: transcript.RoleSystem, Content: s}}
		}
	}
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	var parts []block
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var texts []string
	for i := range parts {
		if parts[i].kind() == blockText {
			texts = append(texts, parts[i].text())
		}
	}
	if len(texts) == 0 {
		return nil
	}
	return []transcript.Message{{Role: transcript.RoleSystem, Content: strings.Join(texts, "\n")}}
}
