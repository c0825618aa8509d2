package ingest

import (
	"github.com/checkup-dev/checkup/db/locale"
	"strconv"

	"encoding/json"
	"strings"

	"github.com/checkup-dev/checkup/db/transcript"
)

// anthropicBlocks tells an Anthropic Messages conversation from an OpenAI one and, when
// it is one, returns each message's content blocks (nil for a string content). It is
// Anthropic's when it has a top-level "system" or a message holds a block only
// Anthropic's format has (tool_use, tool_result, thinking, an image with a "source").
// A conversation of plain strings reads the same in both formats.
func anthropicBlocks(e *element) ([][]block, bool) {
	is := e.System.set
	parsed := make([][]block, len(e.Messages))
	for i := range e.Messages {
		raw := e.Messages[i].Content.raw
		if len(raw) == 0 || raw[0] != '[' {
			continue
		}
		var blocks []block
		if json.Unmarshal(raw, &blocks) != nil {
			continue // not blocks: the OpenAI reading reports it
		}
		parsed[i] = blocks
		for j := range blocks {
			if blocks[j].anthropicOnly() {
				is = true
			}
		}
	}
	return parsed, is
}

// anthropic converts an Anthropic Messages conversation: "system" (a string or text
// blocks) becomes the system turn; text blocks the message's content; each tool_use a
// tool call with its input as the arguments; each tool_result a tool message answering
// its tool_use_id, named after that call, "Error: " before the text of one marked
// is_error; thinking, redacted_thinking, image and document blocks are skipped and
// counted. A user message of tool results and text becomes the tool messages, then the
// user's words.
func (p *parser) anthropic(loc locale.Text, e *element, blocks [][]block) (transcript.Conversation, bool) {
	x := newExpander(p, loc)
	msgs := make([]transcript.Message, 0, len(e.Messages)+1)
	ok := true
	if e.System.raw != nil {
		var sys []block
		if json.Unmarshal(e.System.raw, &sys) != nil {
			p.problem(loc, "ingest.anthropic_system")
			ok = false
		}
		var texts []string
		for i := range sys {
			if sys[i].kind() == blockText {
				texts = append(texts, sys[i].text())
			}
		}
		if text := strings.Join(texts, "\n"); text != "" {
			msgs = append(msgs, transcript.Message{Role: transcript.RoleSystem, Content: text})
		}
	} else if e.System.text != "" {
		msgs = append(msgs, transcript.Message{Role: transcript.RoleSystem, Content: e.System.text})
	}
	for i := range e.Messages {
		m := &e.Messages[i]
		role, good := anyRole(m.Role)
		if !good {
			p.problem(loc, "ingest.anthropic_role", "N", strconv.Itoa(i+1), "Got", quote(m.Role))
			ok = false
			continue
		}
		if blocks[i] == nil {
			text, good := m.Content.resolve()
			if !good {
				p.problem(loc, "ingest.anthropic_content", "N", strconv.Itoa(i+1))
				ok = false
			}
			msgs = append(msgs, transcript.Message{Role: role, Content: text})
			continue
		}
		msgs = append(msgs, x.expand(role, blocks[i])...)
	}
	return transcript.Conversation{Messages: msgs}, ok
}
