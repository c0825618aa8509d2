package transcripttest

import "github.com/checkup-dev/checkup/db/transcript"

// Builders of messages for tests that write a conversation turn by turn.

// System is a system prompt.
func System(s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleSystem, Content: s}
}

// User is a user turn.
func User(s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleUser, Content: s}
}

// Assistant is an assistant turn in words.
func Assistant(s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleAssistant, Content: s}
}

// Call is an assistant turn that calls one tool.
func Call(id, name, args string) transcript.Message {
	return transcript.Message{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{{ID: id, Name: name, Arguments: args}}}
}

// Result is the tool result answering call id.
func Result(id, s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleTool, ToolCallID: id, Content: s}
}

// Conv is a conversation of msgs with the id "c".
func Conv(msgs ...transcript.Message) transcript.Conversation {
	return transcript.Conversation{ID: "c", Messages: msgs}
}
