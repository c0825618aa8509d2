package ingest

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// element is any JSON object the formats put where a conversation, or a ShareGPT turn,
// may stand. One type for all shapes lets one decode per line or array entry tell them
// apart: "messages" means an OpenAI conversation, "conversations" a ShareGPT one, and
// "from"/"value" (or "role"/"content") a ShareGPT turn.
type element struct {
	Messages       []oaMessage     `json:"messages"`
	Conversations  []turn          `json:"conversations"`
	ConversationID idText          `json:"conversation_id"`
	ID             idText          `json:"id"`
	Metadata       json.RawMessage `json:"metadata"`
	System         content         `json:"system"` // ShareGPT's and Anthropic's system prompt
	turn
	traceRecord
}

// traceRecord holds the fields of the trace exports' records: Langfuse traces,
// observations and scores (camelCase in the API and UI exports, snake_case in the
// blob-storage export) and LangSmith runs.
type traceRecord struct {
	Type         string            `json:"type"`
	Name         string            `json:"name"`
	TraceID      idText            `json:"traceId"`
	TraceIDSnake idText            `json:"trace_id"`
	SessionID    idText            `json:"sessionId"`
	SessionSnake idText            `json:"session_id"`
	StartTime    json.RawMessage   `json:"startTime"`
	StartSnake   json.RawMessage   `json:"start_time"`
	Timestamp    json.RawMessage   `json:"timestamp"`
	Input        json.RawMessage   `json:"input"`
	Output       json.RawMessage   `json:"output"`
	Observations []json.RawMessage `json:"observations"`
	Scores       []json.RawMessage `json:"scores"`
	StringValue  *string           `json:"stringValue"`
	StringSnake  *string           `json:"string_value"`
	DataType     string            `json:"dataType"`
	DataSnake    string            `json:"data_type"`

	RunType       string          `json:"run_type"`
	Inputs        json.RawMessage `json:"inputs"`
	Outputs       json.RawMessage `json:"outputs"`
	Extra         json.RawMessage `json:"extra"`
	ParentRunID   *string         `json:"parent_run_id"`
	FeedbackStats json.RawMessage `json:"feedback_stats"`
}

// isConversation reports whether e is a whole conversation rather than a turn.
func (e *element) isConversation() bool {
	return e.Messages != nil || e.Conversations != nil
}

// id returns the export's own id for the conversation: conversation_id, else id.
func (e *element) id() (string, bool) {
	if e.ConversationID.set {
		return e.ConversationID.text, e.ConversationID.ok
	}
	return e.ID.text, !e.ID.set || e.ID.ok
}

// oaMessage is one message of an OpenAI chat export.
type oaMessage struct {
	Role         string       `json:"role"`
	Content      content      `json:"content"`
	Name         string       `json:"name"`
	ToolCalls    []oaToolCall `json:"tool_calls"`
	ToolCallID   string       `json:"tool_call_id"`
	FunctionCall *oaFunction  `json:"function_call"` // the legacy single-call form
}

// oaToolCall is a tool call; Name and Arguments at the top level accept the flattened
// form some exporters write instead of the nested "function" object.
type oaToolCall struct {
	ID        string     `json:"id"`
	Function  oaFunction `json:"function"`
	Name      string     `json:"name"`
	Arguments argText    `json:"arguments"`
}

// oaFunction is the called function's name and its arguments.
type oaFunction struct {
	Name      string  `json:"name"`
	Arguments argText `json:"arguments"`
}

// turn is one ShareGPT turn.
type turn struct {
	From    string  `json:"from"`
	Value   content `json:"value"`
	Role    string  `json:"role"`
	Content content `json:"content"`
}

// size is the number of bytes of a turn's text, as decoded or as kept raw.
func (t *turn) size() int {
	return len(t.Value.text) + len(t.Value.raw) + len(t.Content.text) + len(t.Content.raw)
}

// chars counts the characters of a turn's text.
func (t *turn) chars() int {
	v, _ := t.Value.resolve()
	c, _ := t.Content.resolve()
	return utf8.RuneCountInString(v) + utf8.RuneCountInString(c)
}

// content is a message text that may be a JSON string, null, or an array of parts.
// Strings are decoded at once; anything else is kept raw and judged later, so a bad
// value becomes a located problem instead of aborting the whole decode.
type content struct {
	text string
	raw  []byte
	set  bool
}

// UnmarshalJSON keeps strings and defers everything else; it never fails.
func (c *content) UnmarshalJSON(b []byte) error {
	c.set = true
	switch b[0] {
	case '"':
		c.text = jsonString(b)
	case 'n':
	default:
		c.raw = bytes.Clone(b)
	}
	return nil
}

// part is one element of an array-of-parts content.
type part struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Refusal string `json:"refusal"`
}

// resolve returns the text of c: text parts are joined with newlines and other parts
// (images, audio, files) become a placeholder such as "[image]". ok is false when c is
// neither a string, null nor an array of parts.
func (c *content) resolve() (string, bool) {
	if c.raw == nil {
		return c.text, true
	}
	if c.raw[0] != '[' {
		return "", false
	}
	var parts []part
	if err := json.Unmarshal(c.raw, &parts); err != nil {
		return "", false
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		texts = append(texts, p.text())
	}
	return strings.Join(texts, "\n"), true
}

// text renders one content part.
func (p part) text() string {
	switch strings.ToLower(p.Type) {
	case "text", "input_text", "output_text", "":
		return p.Text
	case "refusal":
		return p.Refusal
	case "image", "image_url", "input_image":
		return "[image]"
	case "audio", "input_audio":
		return "[audio]"
	case "file", "input_file":
		return "[file]"
	}
	return "[" + p.Type + "]"
}

// idText is a conversation id, which exports write as a string or a number.
type idText struct {
	text string
	set  bool // the key was present and not null
	ok   bool // its value was a string or a number
}

// UnmarshalJSON accepts a string or a number as text and marks anything else bad.
func (t *idText) UnmarshalJSON(b []byte) error {
	switch {
	case b[0] == 'n':
	case b[0] == '"':
		*t = idText{text: jsonString(b), set: true, ok: true}
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		*t = idText{text: string(b), set: true, ok: true}
	default:
		*t = idText{set: true}
	}
	return nil
}

// argText is a tool call's arguments: kept verbatim as the agent produced them when
// they are a JSON string, and re-encoded compactly when an exporter wrote an object.
type argText string

// UnmarshalJSON never fails, so odd arguments are kept as evidence.
func (a *argText) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case '"':
		*a = argText(jsonString(b))
	case 'n':
	case '{', '[':
		var buf bytes.Buffer
		if json.Compact(&buf, b) == nil {
			*a = argText(buf.String())
		}
	default:
		*a = argText(b)
	}
	return nil
}

// skipValue discards a JSON value without building anything from it.
type skipValue struct{}

// UnmarshalJSON ignores the value.
func (skipValue) UnmarshalJSON([]byte) error { return nil }
