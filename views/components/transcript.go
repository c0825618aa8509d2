package components

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
)

// Turn is one message of a transcript as the conversation page shows it.
type Turn struct {
	N        int // 1-based turn number, the anchor turn-N
	Message  transcript.Message
	Evidence bool     // a finding quotes this turn
	Related  bool     // a tool result answering a tool call of a quoted turn
	Quotes   []string // the quotes to highlight in it
	Flags    []string // risk flag kinds on this turn
	// Tool names the call a tool result answers (by its id, else the result's own
	// name, else the one call of the agent's turn before it); "" when none is known.
	Tool string
}

// Segment is a piece of a message's text, highlighted when Mark is set.
type Segment struct {
	Text string
	Mark bool
}

// Segments splits text so that every occurrence of a quote is its own marked segment.
// Overlapping quotes merge; a quote that does not occur marks nothing.
func Segments(text string, quotes []string) []Segment {
	type span struct{ start, end int }
	var spans []span
	for _, q := range quotes {
		q = strings.TrimSpace(q)
		if q == "" {
			continue
		}
		for from := 0; ; {
			i := strings.Index(text[from:], q)
			if i < 0 {
				break
			}
			spans = append(spans, span{from + i, from + i + len(q)})
			from += i + len(q)
		}
	}
	if len(spans) == 0 {
		return []Segment{{Text: text}}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var out []Segment
	pos := 0
	for _, s := range spans {
		if s.end <= pos {
			continue
		}
		start := max(s.start, pos)
		if start > pos {
			out = append(out, Segment{Text: text[pos:start]})
		}
		if len(out) > 0 && out[len(out)-1].Mark && start == pos {
			out[len(out)-1].Text += text[start:s.end]
		} else {
			out = append(out, Segment{Text: text[start:s.end], Mark: true})
		}
		pos = s.end
	}
	if pos < len(text) {
		out = append(out, Segment{Text: text[pos:]})
	}
	return out
}

// PrettyJSON indents tool-call arguments and JSON tool results for reading, keeping
// their keys in order, and returns any other text unchanged.
func PrettyJSON(s string) string {
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return s
	}
	var b bytes.Buffer
	if json.Indent(&b, []byte(t), "", "  ") != nil {
		return s
	}
	return b.String()
}

// ToolOutput is how a tool result is shown: indented for reading, unless a quote must
// be highlighted in it, which only the text as stored is sure to contain.
func ToolOutput(t Turn) []Segment {
	if len(t.Quotes) > 0 {
		return Segments(t.Message.Content, t.Quotes)
	}
	return []Segment{{Text: PrettyJSON(t.Message.Content)}}
}

// CallArguments is how a tool call's arguments are shown: indented for reading, unless
// a quote of the turn must be marked in them. A quote of a call reads like
// name({...}), so the name and brackets are dropped before looking for it.
func CallArguments(call transcript.ToolCall, quotes []string) []Segment {
	var inArgs []string
	for _, q := range quotes {
		q = strings.TrimSpace(q)
		if rest, ok := strings.CutPrefix(q, call.Name+"("); ok {
			q = strings.TrimSuffix(rest, ")")
		}
		if q != "" && strings.Contains(call.Arguments, q) {
			inArgs = append(inArgs, q)
		}
	}
	if len(inArgs) > 0 {
		return Segments(call.Arguments, inArgs)
	}
	return []Segment{{Text: PrettyJSON(call.Arguments)}}
}

// RoleLabel names who speaks in a turn.
func RoleLabel(l *locale.Localizer, r transcript.Role) string {
	if s, ok := l.Lookup("role." + string(r)); ok && r != "" {
		return s
	}
	return string(r)
}
