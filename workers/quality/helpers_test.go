package quality

import "github.com/checkup-dev/checkup/workers/transcript"

func conv(msgs ...transcript.Message) transcript.Conversation {
	return transcript.Conversation{ID: "c", Messages: msgs}
}

func user(s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleUser, Content: s}
}
func assistant(s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleAssistant, Content: s}
}
func tool(id, s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleTool, ToolCallID: id, Content: s}
}
func call(id, name, args string) transcript.Message {
	return transcript.Message{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{{ID: id, Name: name, Arguments: args}}}
}
