package analyzer

import (
	"strings"

	"github.com/checkup-dev/checkup/db/transcript"
)

// TurnText renders the searchable text of one turn: its content, then one line per tool
// call written as name(arguments). Evidence quotes are verified against this text, and
// both analyzers quote from it, so a quote may cite a tool call an assistant turn made
// (`book_reservation({"user_id":"mia_li_3668"`) as well as what it said. A tool
// result's text is its content.
func TurnText(msg transcript.Message) string {
	if len(msg.ToolCalls) == 0 {
		return msg.Content
	}
	var b strings.Builder
	b.WriteString(msg.Content)
	for _, tc := range msg.ToolCalls {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(tc.Name)
		b.WriteByte('(')
		b.WriteString(tc.Arguments)
		b.WriteByte(')')
	}
	return b.String()
}
