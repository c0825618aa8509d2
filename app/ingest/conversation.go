package ingest

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
)

// begin counts one more conversation, valid or not, and refuses the file once there are
// more than the limit allows.
func (p *parser) begin(loc locale.Text) error {
	p.records++
	if p.records > p.lim.MaxConversations {
		return fileErr(ErrTooManyConversations, "ingest.too_many_conversations", "N", p.lim.MaxConversations, "Where", loc)
	}
	return nil
}

// add finishes a converted conversation: it checks the per-conversation limits, settles
// its id, reads its outcome label from cands and hands it to emit unless the file
// already has problems. A conversation with no messages is kept, with a warning: the
// quality checks set it aside as empty. A non-nil error stops parsing.
func (p *parser) add(loc locale.Text, c transcript.Conversation, cands []labelCandidate) error {
	if err := p.checkSize(loc, c.Messages); err != nil {
		return err
	}
	if hasNUL(&c) {
		p.problem(loc, "ingest.nul")
	}
	if hasLoneSurrogate(c.Metadata) {
		p.problem(loc, loneSurrogateMsg)
	}
	c.ID = p.settleID(loc, c.ID)
	if len(p.problems) > 0 {
		return nil
	}
	if len(c.Messages) == 0 {
		p.warn(loc, "ingest.no_messages", "ID", quote(c.ID))
	}
	c.Label = p.labels.read(loc, cands)
	p.sum.Conversations++
	p.sum.Messages += len(c.Messages)
	if err := p.emit(c); err != nil {
		return fmt.Errorf("ingest: emit: %w", err)
	}
	return nil
}

// checkSize applies the message-count and message-length limits.
func (p *parser) checkSize(loc locale.Text, msgs []transcript.Message) error {
	if len(msgs) > p.lim.MaxMessages {
		return p.tooManyMessages(loc)
	}
	for i := range msgs {
		if n := messageChars(&msgs[i], p.lim.MaxMessageChars); n > p.lim.MaxMessageChars {
			return p.messageTooLong(locale.Msg("ingest.loc_message", "Where", loc, "N", strconv.Itoa(i+1)), n)
		}
	}
	return nil
}

// tooManyMessages is the error for a conversation over the message limit.
func (p *parser) tooManyMessages(loc locale.Text) error {
	return fileErr(ErrTooManyMessages, "ingest.too_many_messages", "Where", loc, "N", p.lim.MaxMessages)
}

// messageTooLong is the error for a message of n characters, over the limit.
func (p *parser) messageTooLong(where locale.Text, n int) error {
	return fileErr(ErrMessageTooLong, "ingest.message_too_long", "Where", where, "N", n, "Max", p.lim.MaxMessageChars)
}

// conversationTooLarge is the error for a conversation whose text passes MaxLineBytes
// in a format where no single line bounds it (CSV rows, trace spans).
func (p *parser) conversationTooLarge(loc locale.Text) error {
	return fileErr(ErrLineTooLong, "ingest.conversation_too_large", "Where", loc, "Size", sizeText(int64(p.lim.MaxLineBytes)))
}

// messageBytes is the size of a message's text: content, name, ids and tool calls.
func messageBytes(m *transcript.Message) int {
	n := len(m.Content) + len(m.Name) + len(m.ToolCallID)
	for _, tc := range m.ToolCalls {
		n += len(tc.ID) + len(tc.Name) + len(tc.Arguments)
	}
	return n
}

// messageChars counts the characters of a message's content and tool-call arguments.
// Byte lengths bound the count from above, so runes are only counted when needed.
func messageChars(m *transcript.Message, limit int) int {
	n := len(m.Content)
	for _, tc := range m.ToolCalls {
		n += len(tc.Arguments)
	}
	if n <= limit {
		return n
	}
	n = utf8.RuneCountInString(m.Content)
	for _, tc := range m.ToolCalls {
		n += utf8.RuneCountInString(tc.Arguments)
	}
	return n
}

// settleID keeps the export's id, generates one from the position when there is none
// ("conv-0007" for the seventh conversation), and renames a repeated id with a numeric
// suffix ("-2", "-3", ...) and a warning, so every conversation of a task has its own.
func (p *parser) settleID(loc locale.Text, id string) string {
	if id == "" {
		id = fmt.Sprintf("conv-%04d", p.records)
	}
	next, taken := p.ids[id]
	if !taken {
		p.ids[id] = 2
		return id
	}
	for n := next; ; n++ {
		candidate := id + "-" + strconv.Itoa(n)
		if _, used := p.ids[candidate]; used {
			continue
		}
		p.ids[id] = n + 1
		p.ids[candidate] = 2
		p.warn(loc, "ingest.duplicate_id", "ID", quote(id), "New", quote(candidate))
		return candidate
	}
}

// hasNUL reports whether any text of c holds U+0000, which PostgreSQL cannot store in
// text or jsonb.
func hasNUL(c *transcript.Conversation) bool {
	if strings.IndexByte(c.ID, 0) >= 0 || hasEscapedNUL(c.Metadata) {
		return true
	}
	for _, m := range c.Messages {
		if strings.IndexByte(m.Content, 0) >= 0 || strings.IndexByte(m.Name, 0) >= 0 || strings.IndexByte(m.ToolCallID, 0) >= 0 {
			return true
		}
		for _, tc := range m.ToolCalls {
			if strings.IndexByte(tc.ID, 0) >= 0 || strings.IndexByte(tc.Name, 0) >= 0 || strings.IndexByte(tc.Arguments, 0) >= 0 {
				return true
			}
		}
	}
	return false
}

// hasEscapedNUL reports whether raw JSON holds the escape \u0000 (and not an escaped
// backslash followed by the text "u0000").
func hasEscapedNUL(raw []byte) bool {
	for i := 0; ; {
		j := bytes.Index(raw[i:], []byte(`\u0000`))
		if j < 0 {
			return false
		}
		at := i + j
		slashes := 0
		for k := at - 1; k >= 0 && raw[k] == '\\'; k-- {
			slashes++
		}
		if slashes%2 == 0 {
			return true
		}
		i = at + 1
	}
}
