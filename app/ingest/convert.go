package ingest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
)

// record turns one decoded object into a conversation and adds it, or hands a trace
// export's record to the assembler. Problems are recorded against loc; the error is
// non-nil only when parsing must stop.
func (p *parser) record(loc locale.Text, container string, e *element) error {
	if shape := e.traceShape(); shape != noTrace && !e.isConversation() {
		return p.traceItem(loc, container, shape, e)
	}
	if err := p.begin(loc); err != nil {
		return err
	}
	var c transcript.Conversation
	var ok bool
	switch {
	case e.Messages != nil:
		if blocks, is := anthropicBlocks(e); is {
			p.setFormat("anthropic-" + container)
			c, ok = p.anthropic(loc, e, blocks)
		} else {
			p.setFormat("openai-" + container)
			c, ok = p.openai(loc, e)
		}
	case e.Conversations != nil:
		p.setFormat("sharegpt-" + container)
		c, ok = p.sharegpt(loc, e)
	default:
		p.problem(loc, "ingest.no_messages_array")
		return nil
	}
	id, idOK := e.id()
	if !idOK {
		p.problem(loc, "ingest.bad_id")
		ok = false
	}
	if !ok {
		return nil
	}
	c.ID = id
	if len(e.Metadata) > 0 && !bytes.Equal(e.Metadata, []byte("null")) {
		c.Metadata = e.Metadata
	}
	return p.add(loc, c, metadataCandidates("metadata.", c.Metadata))
}

// badRecord counts a record that could not be read as one and records why, message
// id with its arguments.
func (p *parser) badRecord(loc locale.Text, id string, args ...any) error {
	return p.badRecordText(loc, locale.Msg(id, args...))
}

// badRecordText is badRecord with the sentence written.
func (p *parser) badRecordText(loc, what locale.Text) error {
	if err := p.begin(loc); err != nil {
		return err
	}
	p.problemText(loc, what)
	return nil
}

// setFormat names the format after the first conversation read. A conversation of
// plain strings reads the same as OpenAI's and Anthropic's, so a file named OpenAI's by
// its first conversations is renamed when a later one is plainly Anthropic's.
func (p *parser) setFormat(name string) {
	switch {
	case p.sum.Format == "":
		p.sum.Format = name
	case strings.HasPrefix(name, "anthropic-") && p.sum.Format == "openai-"+strings.TrimPrefix(name, "anthropic-"):
		p.sum.Format = name
	}
}

// openai converts an OpenAI chat conversation. An empty "messages" array is a
// conversation with no messages: real exports hold a few empty sessions, and the
// quality checks set them aside instead of the whole upload failing.
func (p *parser) openai(loc locale.Text, e *element) (transcript.Conversation, bool) {
	msgs := make([]transcript.Message, 0, len(e.Messages))
	ok := true
	for i := range e.Messages {
		m, good := p.openaiMessage(loc, i+1, &e.Messages[i])
		msgs = append(msgs, m)
		ok = ok && good
	}
	return transcript.Conversation{Messages: msgs}, ok
}

// openaiMessage converts the n-th message (1-based) of an OpenAI conversation.
func (p *parser) openaiMessage(loc locale.Text, n int, m *oaMessage) (transcript.Message, bool) {
	ok := true
	role, good := normRole(m.Role)
	if !good {
		p.problem(loc, "ingest.openai_role", "N", strconv.Itoa(n), "Got", quote(m.Role))
		ok = false
	}
	text, good := m.Content.resolve()
	if !good {
		p.problem(loc, "ingest.openai_content", "N", strconv.Itoa(n))
		ok = false
	}
	out := transcript.Message{Role: role, Content: text, Name: m.Name, ToolCallID: m.ToolCallID}
	calls, missing := convertCalls(m.ToolCalls)
	if missing > 0 {
		p.problem(loc, "ingest.openai_unnamed_call", "N", strconv.Itoa(n), "Call", strconv.Itoa(missing))
		ok = false
	}
	out.ToolCalls = calls
	if fc := m.FunctionCall; fc != nil && fc.Name != "" {
		out.ToolCalls = append(out.ToolCalls, transcript.ToolCall{Name: fc.Name, Arguments: string(fc.Arguments)})
	}
	return out, ok
}

// convertCalls converts OpenAI tool calls; missing is the 1-based position of the
// first call without a function name, or 0.
func convertCalls(tcs []oaToolCall) (calls []transcript.ToolCall, missing int) {
	for j, tc := range tcs {
		call := transcript.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: string(tc.Function.Arguments)}
		if call.Name == "" {
			call.Name = tc.Name
		}
		if call.Arguments == "" {
			call.Arguments = string(tc.Arguments)
		}
		if call.Name == "" && missing == 0 {
			missing = j + 1
		}
		calls = append(calls, call)
	}
	return calls, missing
}

// normRole maps a role as exports write it to the model's four roles: any case is
// accepted, "developer" is OpenAI's newer name for system, and "function" is its legacy
// name for a tool result.
func normRole(s string) (transcript.Role, bool) {
	r := transcript.Role(strings.ToLower(strings.TrimSpace(s)))
	switch r {
	case "developer":
		return transcript.RoleSystem, true
	case "function":
		return transcript.RoleTool, true
	}
	return r, r.Valid()
}

// sharegpt converts a ShareGPT conversation. Roles map human/user -> user,
// gpt/assistant/bot/model -> assistant, system -> system, observation/tool/function ->
// tool, and function_call -> a tool call on an assistant message. A function_call turn
// that directly follows an assistant turn joins that message, so an assistant that
// spoke and then called a tool stays one message. A function_call value that is not a
// JSON call (or array of calls) is kept as the assistant's text. A conversation with
// no turns is kept with no messages, like an empty OpenAI one.
func (p *parser) sharegpt(loc locale.Text, e *element) (transcript.Conversation, bool) {
	msgs := make([]transcript.Message, 0, len(e.Conversations)+1)
	ok := true
	if system, good := e.System.resolve(); !good {
		p.problem(loc, "ingest.system_string")
		ok = false
	} else if system != "" {
		msgs = append(msgs, transcript.Message{Role: transcript.RoleSystem, Content: system})
	}
	for i := range e.Conversations {
		t := &e.Conversations[i]
		from, value := t.From, &t.Value
		if from == "" && !t.Value.set {
			from, value = t.Role, &t.Content
		}
		text, good := value.resolve()
		if !good {
			p.problem(loc, "ingest.sharegpt_value", "N", strconv.Itoa(i+1))
			ok = false
		}
		role, call, good := sharegptRole(from)
		if !good {
			field := "from"
			if t.From == "" && !t.Value.set {
				field = "role"
			}
			p.problem(loc, "ingest.sharegpt_from", "N", strconv.Itoa(i+1), "Field", strconv.Quote(field), "Got", quote(from))
			ok = false
			continue
		}
		if call {
			msgs = appendCalls(msgs, text)
			continue
		}
		msgs = append(msgs, transcript.Message{Role: role, Content: text})
	}
	return transcript.Conversation{Messages: msgs}, ok
}

// sharegptRole maps a ShareGPT "from" value; call is true for a function_call turn.
func sharegptRole(from string) (role transcript.Role, call, ok bool) {
	switch strings.ToLower(strings.TrimSpace(from)) {
	case "human", "user":
		return transcript.RoleUser, false, true
	case "gpt", "assistant", "bot", "model", "chatgpt":
		return transcript.RoleAssistant, false, true
	case "system":
		return transcript.RoleSystem, false, true
	case "observation", "tool", "function", "function_response", "tool_response":
		return transcript.RoleTool, false, true
	case "function_call", "tool_call":
		return transcript.RoleAssistant, true, true
	}
	return "", false, false
}

// sgCall is a ShareGPT function_call value.
type sgCall struct {
	Name      string  `json:"name"`
	Arguments argText `json:"arguments"`
}

// appendCalls adds the calls written in a function_call turn, joining the message
// before it when that is an assistant's.
func appendCalls(msgs []transcript.Message, value string) []transcript.Message {
	calls, ok := parseCalls(value)
	if !ok {
		return append(msgs, transcript.Message{Role: transcript.RoleAssistant, Content: value})
	}
	if n := len(msgs); n > 0 && msgs[n-1].Role == transcript.RoleAssistant {
		msgs[n-1].ToolCalls = append(msgs[n-1].ToolCalls, calls...)
		return msgs
	}
	return append(msgs, transcript.Message{Role: transcript.RoleAssistant, ToolCalls: calls})
}

// parseCalls reads {"name":..,"arguments":..} or an array of them.
func parseCalls(value string) ([]transcript.ToolCall, bool) {
	v := strings.TrimSpace(value)
	var list []sgCall
	switch {
	case strings.HasPrefix(v, "{"):
		var one sgCall
		if json.Unmarshal([]byte(v), &one) != nil {
			return nil, false
		}
		list = []sgCall{one}
	case strings.HasPrefix(v, "["):
		if json.Unmarshal([]byte(v), &list) != nil || len(list) == 0 {
			return nil, false
		}
	default:
		return nil, false
	}
	calls := make([]transcript.ToolCall, 0, len(list))
	for _, c := range list {
		if c.Name == "" {
			return nil, false
		}
		calls = append(calls, transcript.ToolCall{Name: c.Name, Arguments: string(c.Arguments)})
	}
	return calls, true
}
