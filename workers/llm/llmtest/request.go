package llmtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Request is one chat-completion request as the server received it, parsed so tests
// can assert on what the client sent.
type Request struct {
	// Seq is the arrival order across the server, from 1.
	Seq int
	// Model is the requested model.
	Model string
	// Temperature is nil when the body had no "temperature" key, so a test can tell an
	// omitted zero from a sent one.
	Temperature *float64
	// ResponseFormat is the requested output format; its Type is empty when the body
	// had none.
	ResponseFormat ResponseFormat
	// Messages are the prompt messages in order.
	Messages []Message
	// Authorization is the Authorization header as sent.
	Authorization string
	// Body is the raw request body.
	Body []byte
}

// ResponseFormat is the body's response_format: Type "json_schema" with Name, Strict
// and Schema, or "json_object" alone.
type ResponseFormat struct {
	Type   string
	Name   string
	Strict bool
	Schema json.RawMessage
}

// Message is one prompt message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Turn is one turn of the transcript rendered in a diagnosis request's user message.
type Turn struct {
	N    int
	Role string
	Text string
}

func parseRequest(body []byte) (Request, error) {
	var wire struct {
		Model          string    `json:"model"`
		Temperature    *float64  `json:"temperature"`
		Messages       []Message `json:"messages"`
		Stream         bool      `json:"stream"`
		ResponseFormat *struct {
			Type       string `json:"type"`
			JSONSchema *struct {
				Name   string          `json:"name"`
				Strict bool            `json:"strict"`
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		return Request{}, fmt.Errorf("llmtest: request body: %w", err)
	}
	if wire.Model == "" || len(wire.Messages) == 0 {
		return Request{}, fmt.Errorf("llmtest: request body: model and messages are required")
	}
	if wire.Stream {
		return Request{}, fmt.Errorf("llmtest: request body: streaming is not supported")
	}
	req := Request{Model: wire.Model, Temperature: wire.Temperature, Messages: wire.Messages, Body: body}
	if rf := wire.ResponseFormat; rf != nil {
		req.ResponseFormat.Type = rf.Type
		if js := rf.JSONSchema; js != nil {
			req.ResponseFormat.Name, req.ResponseFormat.Strict, req.ResponseFormat.Schema = js.Name, js.Strict, js.Schema
		}
	}
	return req, nil
}

// System returns the content of the first system message.
func (r Request) System() string { return r.first("system") }

// User returns the content of the first user message: the rendered conversation or
// cluster. A repair request repeats it, so it identifies the unit.
func (r Request) User() string { return r.first("user") }

func (r Request) first(role string) string {
	for _, m := range r.Messages {
		if m.Role == role {
			return m.Content
		}
	}
	return ""
}

// Repair reports whether the request carries an earlier answer, that is whether it is
// the client's repair call.
func (r Request) Repair() bool {
	for _, m := range r.Messages {
		if m.Role == "assistant" {
			return true
		}
	}
	return false
}

// Schema names which answer is wanted: "diagnosis", "action", or "" when unknown. It
// is response_format's json_schema name; in json_object mode it is read from the
// phrase `JSON Schema "NAME"` in the system prompt, where the client puts the schema.
func (r Request) Schema() string {
	if r.ResponseFormat.Name != "" {
		return r.ResponseFormat.Name
	}
	for _, name := range []string{"diagnosis", "action"} {
		if strings.Contains(r.System(), `JSON Schema "`+name+`"`) {
			return name
		}
	}
	return ""
}

var (
	conversationLine = regexp.MustCompile(`(?m)^Conversation: (.+)$`)
	turnLine         = regexp.MustCompile(`^\[(\d+)\] ([a-z]+)(?:\([^)]*\))?(?:: (.*))?`)
)

// continuation starts a further line of a turn's text in the transcript block.
const continuation = "    | "

// Conversation returns the conversation id from the user message's
// "Conversation: ID" line, or "" when there is none.
func (r Request) Conversation() string {
	if m := conversationLine.FindStringSubmatch(r.User()); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// Policy returns the agent's policy as the diagnosis prompt shows it: the text of its
// POLICY block, or "" when there is none.
func (r Request) Policy() string { return block(r.User(), "POLICY") }

// Transcript returns the text of the user message's TRANSCRIPT block, or "".
func (r Request) Transcript() string { return block(r.User(), "TRANSCRIPT") }

// block returns the lines between "<<<BEGIN NAME fence>>>" and the line
// "<<<END NAME fence>>>" with the same fence, or "" when s has no such block.
func block(s, name string) string {
	begin := "<<<BEGIN " + name + " "
	i := strings.Index(s, begin)
	if i < 0 || (i > 0 && s[i-1] != '\n') {
		return ""
	}
	rest := s[i+len(begin):]
	fence, body, ok := strings.Cut(rest, ">>>\n")
	if !ok {
		return ""
	}
	end := "\n<<<END " + name + " " + fence + ">>>"
	j := strings.Index(body, end)
	if j < 0 {
		return ""
	}
	return body[:j]
}

// Turns parses the transcript block of the user message: a turn starts on a line
// "[N] role: text" or "[N] tool(name): text" (a tool-call line "[N] assistant → tool
// ..." has no text); its further lines, which start with "    | ", continue its text,
// and tool-call lines ("    → tool ...") follow it. Markers of omitted turns ("[… ")
// are not turns.
func (r Request) Turns() []Turn {
	var turns []Turn
	for line := range strings.Lines(r.Transcript()) {
		line = strings.TrimSuffix(line, "\n")
		if m := turnLine.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			turns = append(turns, Turn{N: n, Role: m[2], Text: m[3]})
			continue
		}
		if len(turns) > 0 && !strings.HasPrefix(line, "[… ") {
			turns[len(turns)-1].Text += "\n" + strings.TrimPrefix(line, continuation)
		}
	}
	return turns
}
