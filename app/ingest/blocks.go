package ingest

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
)

// block is one element of a content array in the dialects that split a message into
// typed parts: Anthropic content blocks (text, tool_use, tool_result, thinking, image),
// OpenTelemetry GenAI message parts (text, tool_call, tool_call_response, reasoning) and
// LangChain content blocks. One type for all: each dialect sets its own fields.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Refusal   string          `json:"refusal"`
	Content   json.RawMessage `json:"content"` // OTel text part; Anthropic tool_result
	ID        idText          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`     // Anthropic tool_use
	Arguments json.RawMessage `json:"arguments"` // OTel tool_call
	Args      json.RawMessage `json:"args"`      // LangChain tool_call
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Response  json.RawMessage `json:"response"` // OTel tool_call_response
	Result    json.RawMessage `json:"result"`
	Source    json.RawMessage `json:"source"` // Anthropic image and document blocks

	// Bedrock Converse blocks, as Strands and the AWS SDKs record them.
	ToolUse    *converseCall   `json:"toolUse"`
	ToolResult *converseResult `json:"toolResult"`
}

// converseCall is a Bedrock Converse toolUse block.
type converseCall struct {
	ToolUseID string          `json:"toolUseId"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

// converseResult is a Bedrock Converse toolResult block.
type converseResult struct {
	ToolUseID string          `json:"toolUseId"`
	Content   json.RawMessage `json:"content"`
	Status    string          `json:"status"`
}

// blockKind is what a block becomes in the transcript.
type blockKind int

const (
	blockText blockKind = iota
	blockCall
	blockResult
	blockSkip
)

// kind classifies a block by its type.
func (b *block) kind() blockKind {
	switch {
	case b.ToolUse != nil:
		return blockCall
	case b.ToolResult != nil:
		return blockResult
	}
	switch strings.ToLower(b.Type) {
	case "":
		if b.Text == "" && len(b.Content) == 0 {
			return blockSkip // an untyped block that is not text (a Bedrock image)
		}
		return blockText
	case "text", "input_text", "output_text":
		return blockText
	case "refusal":
		return blockText
	case "tool_use", "tool_call", "server_tool_use", "mcp_tool_use", "function_call":
		return blockCall
	case "tool_result", "tool_call_response", "mcp_tool_result", "function_call_output",
		"web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result":
		return blockResult
	}
	return blockSkip
}

// anthropicOnly reports whether a block type exists in Anthropic's Messages format and
// not in OpenAI's chat format, so a conversation holding one is read as Anthropic's.
func (b *block) anthropicOnly() bool {
	switch strings.ToLower(b.Type) {
	case "tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use",
		"web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
		"mcp_tool_use", "mcp_tool_result", "document", "search_result", "container_upload":
		return true
	case "image":
		return len(b.Source) > 0
	}
	return false
}

// text returns a text block's words: "text" (Anthropic, OpenAI), "content" (OTel).
func (b *block) text() string {
	switch {
	case b.Text != "":
		return b.Text
	case b.Refusal != "":
		return b.Refusal
	}
	return rawText(b.Content)
}

// callID is a call's or result's id, whichever field the dialect uses.
func (b *block) callID() string {
	if b.ToolUseID != "" {
		return b.ToolUseID
	}
	return b.ID.text
}

// arguments renders a call's arguments: kept as written when a string, compact JSON
// when an object.
func (b *block) arguments() string {
	for _, raw := range []json.RawMessage{b.Input, b.Arguments, b.Args} {
		if len(raw) > 0 {
			return argsText(raw)
		}
	}
	return ""
}

// argsText decodes arguments as argText does: a string verbatim, JSON compacted.
func argsText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	var a argText
	_ = a.UnmarshalJSON(raw)
	return string(a)
}

// rawText renders a JSON value as text: a string as itself, null as nothing, anything
// else as compact JSON.
func rawText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || raw[0] == 'n':
		return ""
	case raw[0] == '"':
		return jsonString(raw)
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// expander turns messages made of blocks into transcript messages: text blocks join
// into the message's content, call blocks become its tool calls, and each result block
// becomes a tool message of its own, named after the call it answers. Blocks the
// transcript has no place for (thinking, images, documents) are counted as skipped.
type expander struct {
	p     *parser
	loc   locale.Text
	names map[string]string // call id -> tool name
}

func newExpander(p *parser, loc locale.Text) *expander {
	return &expander{p: p, loc: loc, names: map[string]string{}}
}

// expand converts one message of role role made of blocks.
func (x *expander) expand(role transcript.Role, blocks []block) []transcript.Message {
	var out []transcript.Message
	cur := transcript.Message{Role: role}
	var texts []string
	started := false
	flush := func() {
		if !started {
			return
		}
		cur.Content = strings.Join(texts, "\n")
		out = append(out, cur)
		cur, texts, started = transcript.Message{Role: role}, nil, false
	}
	for i := range blocks {
		b := &blocks[i]
		switch b.kind() {
		case blockText:
			texts, started = append(texts, b.text()), true
		case blockCall:
			call := x.call(b)
			cur.ToolCalls, started = append(cur.ToolCalls, call), true
		case blockResult:
			flush()
			out = append(out, x.result(b))
		default:
			x.p.skip(x.loc, skipName(b.Type))
		}
	}
	if !started && len(out) == 0 {
		started = true // a message with no blocks stays, empty
	}
	flush()
	return out
}

// call converts a call block and remembers its name for the result.
func (x *expander) call(b *block) transcript.ToolCall {
	call := transcript.ToolCall{ID: b.callID(), Name: b.Name, Arguments: b.arguments()}
	if u := b.ToolUse; u != nil {
		call = transcript.ToolCall{ID: u.ToolUseID, Name: u.Name, Arguments: argsText(u.Input)}
	}
	if call.Name == "" {
		x.p.problem(x.loc, "ingest.unnamed_call")
	}
	if call.ID != "" {
		x.names[call.ID] = call.Name
	}
	return call
}

// result converts a result block into a tool message. An Anthropic result marked
// is_error reads as an error in its text ("Error: ..."), which is where the analysis
// looks for tool errors.
func (x *expander) result(b *block) transcript.Message {
	if r := b.ToolResult; r != nil {
		m := transcript.Message{Role: transcript.RoleTool, ToolCallID: r.ToolUseID, Name: x.names[r.ToolUseID], Content: x.resultText(r.Content)}
		if strings.EqualFold(r.Status, "error") {
			m.Content = errorText(m.Content)
		}
		return m
	}
	id := b.callID()
	m := transcript.Message{Role: transcript.RoleTool, ToolCallID: id, Name: x.names[id]}
	switch {
	case len(b.Content) > 0:
		m.Content = x.resultText(b.Content)
	case len(b.Response) > 0:
		m.Content = rawText(b.Response)
	default:
		m.Content = rawText(b.Result)
	}
	if b.IsError {
		m.Content = errorText(m.Content)
	}
	return m
}

// resultText renders a result's content: a string, or blocks of which the text counts.
func (x *expander) resultText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return rawText(raw)
	}
	var blocks []block
	if json.Unmarshal(raw, &blocks) != nil {
		return rawText(raw)
	}
	var texts []string
	for i := range blocks {
		if blocks[i].kind() == blockText {
			texts = append(texts, blocks[i].text())
			continue
		}
		x.p.skip(x.loc, skipName(blocks[i].Type))
	}
	return strings.Join(texts, "\n")
}

// skipName names a skipped block's kind for the count.
func skipName(typ string) string {
	if typ == "" {
		return "untyped"
	}
	return cutText(strings.ToLower(typ))
}

// errorText makes a failed tool's result read as an error unless it already does.
func errorText(s string) string {
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(s)), "error") {
		return s
	}
	if s == "" {
		return "Error"
	}
	return "Error: " + s
}

// nameResults fills the tool name of results that answer a call by id and have none.
func nameResults(msgs []transcript.Message) {
	names := map[string]string{}
	for i := range msgs {
		m := &msgs[i]
		for _, tc := range m.ToolCalls {
			if tc.ID != "" {
				names[tc.ID] = tc.Name
			}
		}
		if m.Role == transcript.RoleTool && m.Name == "" && m.ToolCallID != "" {
			m.Name = names[m.ToolCallID]
		}
	}
}

// anyRole maps the roles of every message dialect to the transcript's: OpenAI's and
// Anthropic's, OTel's, and LangChain's message types (human, ai, system, tool).
func anyRole(s string) (transcript.Role, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "system", "developer":
		return transcript.RoleSystem, true
	case "user", "human":
		return transcript.RoleUser, true
	case "assistant", "ai", "model", "bot":
		return transcript.RoleAssistant, true
	case "tool", "function", "ipython":
		return transcript.RoleTool, true
	}
	return "", false
}
