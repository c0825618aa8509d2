// Package transcript is the normalised conversation model that every upload format
// becomes and every analysis stage reads: ordered messages with roles, tool calls and
// tool results, addressed by 1-based turn numbers.
package transcript

import (
	"encoding/json"
	"strings"
)

// Role is who spoke a message.
type Role string

// The roles a message may have; anything else is refused at upload.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Valid reports whether r is one of the four accepted roles.
func (r Role) Valid() bool {
	switch r {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		return true
	}
	return false
}

// ToolCall is an assistant's request to run a tool; Arguments stays the JSON text the
// agent produced, so a malformed call is kept as evidence rather than lost.
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments,omitempty"`
}

// Message is one turn of a conversation.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content"`
	Name       string     `json:"name,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// Label is the outcome an export recorded for a conversation (a success flag, a
// reward, a resolution, CSAT, thumbs), read at upload. It scores the diagnosis and
// splits its clusters; it is never analysis input.
type Label string

// The labels a conversation may carry; LabelNone when the export has none for it.
const (
	LabelNone      Label = ""
	LabelFailed    Label = "failed"
	LabelSucceeded Label = "succeeded"
)

// Conversation is one exported conversation. ID is the export's own id when it had
// one; Metadata is kept verbatim and never used as analysis input, and Label is the
// outcome read from it (or from a CSV column).
type Conversation struct {
	ID       string          `json:"id"`
	Messages []Message       `json:"messages"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
	Label    Label           `json:"label,omitempty"`
}

// Turn returns the message with 1-based turn number n, and false when there is none.
// Evidence quotes in findings point at turns by this number.
func (c Conversation) Turn(n int) (Message, bool) {
	if n < 1 || n > len(c.Messages) {
		return Message{}, false
	}
	return c.Messages[n-1], true
}

// Sizes are a conversation's counts that a failure score must beat (counting alone
// would score something): its messages but the system prompt, the user's turns and the
// agent's tool calls.
type Sizes struct {
	Turns, UserTurns, ToolCalls int
}

// Sizes counts c's messages, user turns and tool calls.
func (c Conversation) Sizes() Sizes {
	var s Sizes
	for _, m := range c.Messages {
		if m.Role != RoleSystem {
			s.Turns++
		}
		if m.Role == RoleUser {
			s.UserTurns++
		}
		s.ToolCalls += len(m.ToolCalls)
	}
	return s
}

// SystemPrompt is the text of c's system messages, one after another: the agent's
// policy, which most conversations of one agent share. "" when it has none.
func (c Conversation) SystemPrompt() string {
	var parts []string
	for _, m := range c.Messages {
		if m.Role == RoleSystem {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// ToolNames tells which tool each tool result answers, as the messages go: the call it
// names by id, else its own name, else the oldest call not answered yet.
type ToolNames struct {
	byID    map[string]string // tool call id → tool name
	pending []string          // names of calls not answered yet, in call order
}

// Called records an assistant message's tool calls.
func (t *ToolNames) Called(m Message) {
	for _, tc := range m.ToolCalls {
		if t.byID == nil {
			t.byID = map[string]string{}
		}
		t.byID[tc.ID] = tc.Name
		t.pending = append(t.pending, tc.Name)
	}
}

// Answered is the tool a tool message answers ("" when it cannot tell), and marks one
// call answered.
func (t *ToolNames) Answered(m Message) string {
	name := m.Name
	if n, ok := t.byID[m.ToolCallID]; ok && m.ToolCallID != "" {
		name = n
	} else if name == "" && len(t.pending) > 0 {
		name = t.pending[0]
	}
	if len(t.pending) > 0 {
		t.pending = t.pending[1:]
	}
	return name
}
