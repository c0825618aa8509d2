package ingest

import (
	"encoding/csv"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
)

// csvConv is what the CSV reader keeps about one conversation while its rows stream by;
// the rows themselves wait in the spill.
type csvConv struct {
	id     string
	row    int // the row where it first appears
	rows   int
	bytes  int
	labels []string // the first non-empty cell of each label column
}

// csvMsg is one CSV row with its sort keys.
type csvMsg struct {
	msg   transcript.Message
	order float64
	at    time.Time
}

// parseCSV reads a CSV file with one message per row. Rows of one conversation may be
// anywhere in the file, so rows are grouped by conversation id in order of first
// appearance and the conversations are emitted at the end. The rows wait in a spill:
// in memory up to Limits.SpillBytes, then in a temporary file, so memory does not grow
// with the file. When an order or time column is present, each conversation's messages
// are sorted by it (order first, then time; rows with equal keys keep their file order).
// The per-conversation limits are checked as rows arrive.
func (p *parser) parseCSV(r io.Reader, s sniffed) error {
	p.setFormat("csv")
	sniffedLayout, _ := csvHeader(s.head)
	g := &guard{r: r, firstLine: s.line, maxLine: p.lim.MaxLineBytes, csv: csvRecord{comma: byte(sniffedLayout.comma)}}
	cr := csv.NewReader(g)
	cr.Comma = sniffedLayout.comma
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return p.csvReadErr(s.line, err)
	}
	l, _ := newLayout(cr.Comma, slices.Clone(header))
	if msg := l.missing(); !msg.IsZero() {
		return &FileError{Kind: ErrCSVHeader, Msg: msg}
	}
	sp := newSpill(p.lim.SpillBytes, p.lim.TempDir)
	defer sp.close()
	index := make(map[string]uint32)
	var convs []*csvConv
	var buf []byte
	conv := func(id string, row int) (*csvConv, uint32, error) {
		if i, seen := index[id]; seen {
			return convs[i], i, nil
		}
		if err := p.begin(rowLoc(row)); err != nil {
			return nil, 0, err
		}
		c := &csvConv{id: id, row: row, labels: make([]string, len(l.labels))}
		index[id] = uint32(len(convs))
		convs = append(convs, c)
		return c, uint32(len(convs) - 1), nil
	}
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
			if _, _, err := conv(id, row); err != nil {
				return err
			}
			continue
		}
		id, m, ok := p.csvRow(l, rec, row)
		if n := messageChars(&m.msg, p.lim.MaxMessageChars); n > p.lim.MaxMessageChars {
			return p.messageTooLong(rowLoc(row), n)
		}
		if !ok {
			continue
		}
		c, ci, err := conv(id, row)
		if err != nil {
			return err
		}
		if c.rows >= p.lim.MaxMessages {
			return p.tooManyMessages(locale.Msg("ingest.row_conversation", "N", strconv.Itoa(row), "ID", quote(id)))
		}
		c.rows++
		if c.bytes += messageBytes(&m.msg); c.bytes > p.lim.MaxLineBytes {
			return p.conversationTooLarge(rowLoc(c.row))
		}
		for j, col := range l.labels {
			if c.labels[j] == "" && col.index < len(rec) {
				c.labels[j] = cutText(strings.TrimSpace(rec[col.index]))
			}
		}
		if len(p.problems) > 0 {
			continue // the file is refused: its rows need not be kept
		}
		buf = appendMessage(buf[:0], &m.msg)
		if err := sp.add(ci, m.order, timeKey(m.at), buf); err != nil {
			return err
		}
	}
	err = p.emitCSV(l, convs, sp)
	p.sum.SpilledBytes += sp.spilled()
	return err
}

// timeKey turns a row's time into a sort key: nanoseconds since 1970, clamped for dates
// outside the years 1678–2262, 0 for no time.
func timeKey(t time.Time) int64 {
	switch {
	case t.IsZero():
		return 0
	case t.Year() < 1678:
		return math.MinInt64
	case t.Year() > 2261:
		return math.MaxInt64
	}
	return t.UnixNano()
}

// csvReadErr records a malformed row and lets reading go on; whole-file and read
// errors stop it.
func (p *parser) csvReadErr(firstLine int, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		p.problem(lineLoc(firstLine+pe.Line-1), "ingest.csv_invalid", "Detail", pe.Err.Error())
		return nil
	}
	return err
}

// emitCSV reads the rows back grouped by conversation, in order of first appearance,
// and emits the conversations, unless the file had problems. A conversation named only
// by session rows has no rows in the spill and is emitted empty in its place.
func (p *parser) emitCSV(l csvLayout, convs []*csvConv, sp *spill) error {
	if len(p.problems) > 0 {
		return nil
	}
	next := 0 // the next conversation to emit
	var msgs []transcript.Message
	flush := func(upTo int) error {
		for ; next < upTo; next++ {
			c := convs[next]
			var cands []labelCandidate
			for j, col := range l.labels {
				if cand, ok := textCandidate(col.field, col.key, c.labels[j]); ok {
					cands = append(cands, cand)
				}
			}
			loc := rowLoc(c.row)
			conv := transcript.Conversation{ID: c.id, Messages: p.csvToolCalls(loc, msgs)}
			msgs = nil
			if err := p.add(loc, conv, cands); err != nil {
				return err
			}
		}
		return nil
	}
	err := sp.each(nil, func(group uint32, data []byte) error {
		if int(group) >= next+1 {
			// Conversations before this group are complete; the group's own rows follow.
			if err := flush(int(group)); err != nil {
				return err
			}
		}
		d := decoder{b: data}
		m := d.message()
		if d.err != nil {
			return d.err
		}
		msgs = append(msgs, m)
		return nil
	})
	if err != nil {
		return err
	}
	err = flush(len(convs))
	p.warnCSVRepairs()
	return err
}

// csvRow converts one row; ok is false when it had problems (recorded).
func (p *parser) csvRow(l csvLayout, rec []string, row int) (id string, m csvMsg, ok bool) {
	loc := rowLoc(row)
	cell := func(c column) (string, bool) {
		i := l.cols[c]
		if i < 0 || i >= len(rec) {
			return "", false
		}
		return rec[i], true
	}
	ok = true
	bad := func(id string, args ...any) {
		p.problem(loc, id, args...)
		ok = false
	}
	raw, _ := cell(colConversation)
	if id = strings.TrimSpace(raw); id == "" {
		bad("ingest.csv_no_id")
	}
	raw, _ = cell(colRole)
	role, good := csvRole(raw)
	if !good {
		bad("ingest.csv_role", "Column", quote(l.title(colRole)), "Got", quote(raw))
	}
	text, present := cell(colContent)
	if !present || (text == "" && (role == transcript.RoleUser || role == transcript.RoleSystem)) {
		bad("ingest.csv_no_content")
	}
	m.msg = transcript.Message{Role: role, Content: text}
	m.msg.Name, _ = cell(colName)
	m.msg.ToolCallID, _ = cell(colToolCallID)
	toolName, _ := cell(colToolName)
	toolName = strings.TrimSpace(toolName)
	calls, problem := csvCalls(l, cell)
	switch {
	case !problem.IsZero():
		p.problemText(loc, problem)
		ok = false
	case role == transcript.RoleAssistant && calls == nil && toolName != "":
		// One call per row, in columns: the tool's name, its arguments and its id.
		args, _ := cell(colArguments)
		calls = []transcript.ToolCall{{ID: strings.TrimSpace(m.msg.ToolCallID), Name: toolName, Arguments: args}}
	case role == transcript.RoleTool && m.msg.Name == "":
		m.msg.Name = toolName
	}
	if calls != nil && role == transcript.RoleAssistant {
		m.msg.ToolCalls, m.msg.ToolCallID = calls, ""
	}
	if l.cols[colOrder] >= 0 {
		raw, _ = cell(colOrder)
		n, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil {
			bad("ingest.csv_order", "Column", quote(l.title(colOrder)), "Got", quote(raw))
		}
		m.order = n
	}
	if l.cols[colTime] >= 0 {
		raw, _ = cell(colTime)
		t, good := parseTime(raw)
		if !good {
			bad("ingest.csv_time", "Column", quote(l.title(colTime)), "Got", quote(raw))
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
