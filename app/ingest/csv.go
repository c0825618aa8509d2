package ingest

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/checkup-dev/checkup/workers/transcript"
)

// csvConv gathers the rows of one CSV conversation.
type csvConv struct {
	id   string
	row  int // the row where it first appears
	msgs []csvMsg
}

// csvMsg is one CSV row with its sort keys.
type csvMsg struct {
	msg   transcript.Message
	order float64
	at    time.Time
}

// parseCSV reads a CSV file with one message per row. Rows of one conversation may be
// anywhere in the file, so rows are grouped by conversation id in order of first
// appearance and the conversations are emitted at the end: unlike the JSON formats, the
// whole CSV is held in memory (bounded by MaxDecompressedBytes). When an order or time
// column is present, each conversation's messages are sorted by it (order first, then
// time; rows with equal keys keep their file order).
func (p *parser) parseCSV(r io.Reader, s sniffed) error {
	p.setFormat("csv")
	sniffedLayout, _ := csvHeader(s.head)
	g := &guard{r: r, firstLine: s.line, maxLine: p.lim.MaxLineBytes}
	cr := csv.NewReader(g)
	cr.Comma = sniffedLayout.comma
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return p.csvReadErr(s.line, err)
	}
	l, _ := newLayout(cr.Comma, slices.Clone(header))
	if msg := l.missing(); msg != "" {
		return fileErr(ErrCSVHeader, "%s", msg)
	}
	convs := make(map[string]*csvConv)
	var order []*csvConv
	for row := 2; ; row++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if err := p.csvReadErr(s.line, err); err != nil {
				return err
			}
			continue
		}
		if blank(rec) {
			continue
		}
		if id, ok := sessionOnly(l, rec); ok {
			if _, seen := convs[id]; seen {
				continue
			}
			if err := p.begin(fmt.Sprintf("row %d", row)); err != nil {
				return err
			}
			c := &csvConv{id: id, row: row}
			convs[id] = c
			order = append(order, c)
			continue
		}
		id, m, ok := p.csvRow(l, rec, row)
		if n := messageChars(&m.msg, p.lim.MaxMessageChars); n > p.lim.MaxMessageChars {
			return p.messageTooLong(fmt.Sprintf("row %d", row), n)
		}
		if !ok {
			continue
		}
		c := convs[id]
		if c == nil {
			loc := fmt.Sprintf("row %d", row)
			if err := p.begin(loc); err != nil {
				return err
			}
			c = &csvConv{id: id, row: row}
			convs[id] = c
			order = append(order, c)
		}
		if len(c.msgs) >= p.lim.MaxMessages {
			return p.tooManyMessages(fmt.Sprintf("row %d (conversation %s)", row, quote(id)))
		}
		c.msgs = append(c.msgs, m)
	}
	return p.emitCSV(l, order)
}

// csvReadErr records a malformed row and lets reading go on; whole-file and read
// errors stop it.
func (p *parser) csvReadErr(firstLine int, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		p.problem(lineLoc(firstLine+pe.Line-1), "invalid CSV: %v", pe.Err)
		return nil
	}
	return err
}

// emitCSV sorts and emits the gathered conversations, unless the file had problems.
func (p *parser) emitCSV(l csvLayout, convs []*csvConv) error {
	if len(p.problems) > 0 {
		return nil
	}
	byOrder, byTime := l.cols[colOrder] >= 0, l.cols[colTime] >= 0
	for _, c := range convs {
		if byOrder || byTime {
			slices.SortStableFunc(c.msgs, func(a, b csvMsg) int {
				if byOrder {
					if n := cmp.Compare(a.order, b.order); n != 0 {
						return n
					}
				}
				return a.at.Compare(b.at)
			})
		}
		msgs := make([]transcript.Message, len(c.msgs))
		for i := range c.msgs {
			msgs[i] = c.msgs[i].msg
		}
		c.msgs = nil
		if err := p.add(fmt.Sprintf("row %d", c.row), transcript.Conversation{ID: c.id, Messages: msgs}, nil); err != nil {
			return err
		}
	}
	return nil
}

// csvRow converts one row; ok is false when it had problems (recorded).
func (p *parser) csvRow(l csvLayout, rec []string, row int) (id string, m csvMsg, ok bool) {
	loc := fmt.Sprintf("row %d", row)
	cell := func(c column) (string, bool) {
		i := l.cols[c]
		if i < 0 || i >= len(rec) {
			return "", false
		}
		return rec[i], true
	}
	ok = true
	bad := func(format string, args ...any) {
		p.problem(loc, format, args...)
		ok = false
	}
	raw, _ := cell(colConversation)
	if id = strings.TrimSpace(raw); id == "" {
		bad("missing conversation id")
	}
	raw, _ = cell(colRole)
	role, good := csvRole(raw)
	if !good {
		bad("%s must be one of system, user, assistant, tool (got %s)", quote(l.title(colRole)), quote(raw))
	}
	text, present := cell(colContent)
	if !present || (text == "" && (role == transcript.RoleUser || role == transcript.RoleSystem)) {
		bad("missing content")
	}
	m.msg = transcript.Message{Role: role, Content: text}
	m.msg.Name, _ = cell(colName)
	m.msg.ToolCallID, _ = cell(colToolCallID)
	if raw, _ = cell(colToolCalls); strings.TrimSpace(raw) != "" {
		var calls []oaToolCall
		if err := json.Unmarshal([]byte(raw), &calls); err != nil {
			bad("%s must be a JSON array of tool calls", quote(l.title(colToolCalls)))
		} else if tcs, missing := convertCalls(calls); missing > 0 {
			bad("tool call %d has no function name", missing)
		} else {
			m.msg.ToolCalls = tcs
		}
	}
	if l.cols[colOrder] >= 0 {
		raw, _ = cell(colOrder)
		n, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil {
			bad("%s must be a number (got %s)", quote(l.title(colOrder)), quote(raw))
		}
		m.order = n
	}
	if l.cols[colTime] >= 0 {
		raw, _ = cell(colTime)
		t, good := parseTime(raw)
		if !good {
			bad("%s is not a date and time Checkup can read (got %s); use RFC 3339, e.g. 2024-05-15T15:00:00Z", quote(l.title(colTime)), quote(raw))
		}
		m.at = t
	}
	return id, m, ok
}

// csvRole maps a CSV role, in any case: system and developer -> system; user, human,
// customer and client -> user; assistant, gpt, bot, agent, ai and model -> assistant;
// tool, function and observation -> tool.
func csvRole(s string) (transcript.Role, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "system", "developer":
		return transcript.RoleSystem, true
	case "user", "human", "customer", "client":
		return transcript.RoleUser, true
	case "assistant", "gpt", "bot", "agent", "ai", "model":
		return transcript.RoleAssistant, true
	case "tool", "function", "observation":
		return transcript.RoleTool, true
	}
	return "", false
}

// sessionOnly reports whether a row names a conversation and nothing else: exports write
// such a row for a session in which nobody spoke. It makes the conversation exist, with
// no message of its own.
func sessionOnly(l csvLayout, rec []string) (id string, ok bool) {
	i := l.cols[colConversation]
	if i < 0 || i >= len(rec) {
		return "", false
	}
	id = strings.TrimSpace(rec[i])
	for j, f := range rec {
		if j != i && strings.TrimSpace(f) != "" {
			return "", false
		}
	}
	return id, id != ""
}

// blank reports whether every cell of a row is empty.
func blank(rec []string) bool {
	for _, f := range rec {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}
