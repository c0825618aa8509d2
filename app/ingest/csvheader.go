package ingest

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
)

// column is a field a CSV column can hold.
type column int

const (
	colConversation column = iota
	colRole
	colContent
	colOrder
	colTime
	colName
	colToolName
	colToolCallID
	colToolCalls
	colFunctionCall
	colArguments
	numColumns
)

// names lists the header names that mean c; matching ignores case, surrounding space
// and '_', '-' or ' ' inside the name.
func (c column) names() []string {
	switch c {
	case colConversation:
		return []string{"conversation_id", "conversation", "session_id", "thread_id", "chat_id", "dialog_id"}
	case colRole:
		return []string{"role", "speaker", "from", "sender", "author"}
	case colContent:
		return []string{"content", "message", "text", "body", "value"}
	case colOrder:
		return []string{"order", "seq", "turn", "index", "position", "message_index"}
	case colTime:
		return []string{"time", "timestamp", "created_at", "ts"}
	case colName:
		return []string{"name"}
	case colToolName:
		return []string{"tool_name", "function_name", "tool"}
	case colToolCallID:
		return []string{"tool_call_id", "call_id"}
	case colToolCalls:
		return []string{"tool_calls"}
	case colFunctionCall:
		return []string{"function_call", "tool_call"}
	}
	return []string{"arguments", "tool_arguments", "tool_args", "tool_input", "function_arguments", "args"}
}

// csvLayout is a CSV file's delimiter and where each field is; -1 marks an absent one.
type csvLayout struct {
	comma  rune
	cols   [numColumns]int
	titles []string   // the header as written, for messages
	labels []labelCol // columns that hold an outcome label, in header order
}

// labelCol is a column whose title is an outcome field (success, csat, thumbs, ...).
type labelCol struct {
	index int
	key   string // the outcome field it matched
	field string // "column <title as written>"
}

// csvHeader reads the header line: it picks the delimiter (comma, semicolon or tab,
// whichever is most frequent) and finds the known columns. ok is false when no column
// is known, so the text is not taken for CSV at all.
func csvHeader(line []byte) (csvLayout, bool) {
	comma, best := ',', bytes.Count(line, []byte{','})
	for _, c := range []byte{';', '\t'} {
		if n := bytes.Count(line, []byte{c}); n > best {
			comma, best = rune(c), n
		}
	}
	r := csv.NewReader(bytes.NewReader(line))
	r.Comma = comma
	r.LazyQuotes = true
	fields, err := r.Read()
	if err != nil {
		return csvLayout{comma: comma}, false
	}
	return newLayout(comma, fields)
}

// newLayout finds the known columns in a header record; known is false when there are
// none.
func newLayout(comma rune, fields []string) (l csvLayout, known bool) {
	l = csvLayout{comma: comma, titles: fields}
	var folded [numColumns][]string
	for c := range numColumns {
		l.cols[c] = -1
		for _, n := range c.names() {
			folded[c] = append(folded[c], foldHeader(n))
		}
	}
	for i, f := range fields {
		name := foldHeader(f)
		taken := false
		for c := range numColumns {
			if l.cols[c] < 0 && slices.Contains(folded[c], name) {
				l.cols[c] = i
				known, taken = true, true
			}
		}
		if taken {
			continue
		}
		for _, k := range labelKeys() {
			if name == foldHeader(k.name) {
				l.labels = append(l.labels, labelCol{index: i, key: k.name, field: "column " + strings.TrimSpace(strings.TrimPrefix(f, "\ufeff"))})
				break
			}
		}
	}
	return l, known
}

// foldHeader makes header matching loose: case, surrounding space, a byte order mark,
// and '_', '-' and ' ' inside the name do not matter.
func foldHeader(s string) string {
	s = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(s, "\ufeff")))
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == ' ' {
			return -1
		}
		return r
	}, s)
}

// label names a required column, and the titles it may have, in the sentence about a
// header that lacks it.
func (c column) label() locale.Text {
	names := strings.Join(c.names(), ", ")
	switch c {
	case colConversation:
		return locale.Msg("ingest.csv_need_id", "Names", names)
	case colRole:
		return locale.Msg("ingest.csv_need_role", "Names", names)
	}
	return locale.Msg("ingest.csv_need_content", "Names", names)
}

// maxHeaderShown is how many header titles the missing-column sentence repeats.
const maxHeaderShown = 12

// missing returns a sentence that repeats the header as found and names the required
// columns it lacks with the titles each may have, or zero when none is missing.
func (l csvLayout) missing() locale.Text {
	var parts []locale.Text
	for _, c := range []column{colConversation, colRole, colContent} {
		if l.cols[c] < 0 {
			parts = append(parts, c.label())
		}
	}
	if len(parts) == 0 {
		return locale.Text{}
	}
	return locale.Msg("ingest.csv_header", "Found", l.found(), "Need", locale.List(parts...))
}

// found lists the header titles as written, shortened, for a message.
func (l csvLayout) found() locale.Text {
	var shown []locale.Text
	for i, t := range l.titles {
		if i == maxHeaderShown {
			shown = append(shown, locale.Msg("ingest.and_more", "N", len(l.titles)-i))
			break
		}
		t = strings.TrimSpace(strings.TrimPrefix(t, "\ufeff"))
		if t == "" {
			shown = append(shown, locale.Msg("ingest.blank_title"))
			continue
		}
		shown = append(shown, locale.Lit(cut(t)))
	}
	return locale.Join("join.comma", shown...)
}

// title is the header text of column c as the file wrote it.
func (l csvLayout) title(c column) string {
	return strings.TrimSpace(l.titles[l.cols[c]])
}
