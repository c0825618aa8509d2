package ingest

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
)

// The trace formats (OpenTelemetry spans, Langfuse observations, LangSmith runs) do not
// hold conversations: they hold model calls, each with the messages sent to the model
// (the history so far) and the messages it returned, and a conversation is the calls of
// one conversation id (or one trace) in time order. The calls of a conversation may be
// anywhere in the file, so they wait in a spill until its end; then each conversation
// is rebuilt once from its calls, without repeating the turns each call carries again.

// callKind says how a call takes part in rebuilding its trace's conversation.
type callKind byte

const (
	// callModel is a call to a model (a chat span, a generation, an llm run): its input
	// and output are the conversation.
	callModel callKind = iota
	// callTop is an operation around model calls that also records messages (an agent
	// span, a Langfuse trace's input and output, a LangSmith root run). It is read only
	// when its trace has no model call, since it would repeat what they hold.
	callTop
	// callMeta carries only metadata or outcome fields (a Langfuse trace without input,
	// a score).
	callMeta
)

// llmCall is one call as it waits in the spill.
type llmCall struct {
	kind     callKind
	trace    uint32 // set by the assembler
	line     int
	at       int64 // start time, Unix nanoseconds; 0 when unknown
	system   []transcript.Message
	input    []transcript.Message
	output   []transcript.Message
	metadata json.RawMessage
	labels   []labelCandidate // outcome fields outside metadata (scores, feedback)
}

// encode appends the call's spill record to b.
func (c *llmCall) encode(b []byte) []byte {
	b = append(b, byte(c.kind))
	b = binary.AppendUvarint(b, uint64(c.trace))
	b = binary.AppendUvarint(b, uint64(c.line))
	b = appendMessages(b, c.system)
	b = appendMessages(b, c.input)
	b = appendMessages(b, c.output)
	b = appendString(b, string(c.metadata))
	b = binary.AppendUvarint(b, uint64(len(c.labels)))
	for _, l := range c.labels {
		b = appendString(b, l.field)
		b = appendString(b, l.key)
		b = append(b, byte(l.value.kind))
		b = appendString(b, l.value.text)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(l.value.num))
		flag := byte(0)
		if l.value.flag {
			flag = 1
		}
		b = append(b, flag)
	}
	return b
}

// decodeCall reads a call back from its spill record.
func decodeCall(data []byte) (llmCall, error) {
	if len(data) == 0 {
		return llmCall{}, errCodec
	}
	c := llmCall{kind: callKind(data[0])}
	d := decoder{b: data[1:]}
	c.trace = uint32(d.uvarint())
	c.line = int(d.uvarint())
	c.system, c.input, c.output = d.messages(), d.messages(), d.messages()
	if meta := d.string(); meta != "" {
		c.metadata = json.RawMessage(meta)
	}
	n := d.uvarint()
	for i := uint64(0); i < n && d.err == nil; i++ {
		l := labelCandidate{field: d.string(), key: d.string()}
		if len(d.b) < 10 {
			d.err = errCodec
			break
		}
		l.value.kind = valueKind(d.b[0])
		d.b = d.b[1:]
		l.value.text = d.string()
		if len(d.b) < 9 {
			d.err = errCodec
			break
		}
		l.value.num = math.Float64frombits(binary.LittleEndian.Uint64(d.b))
		l.value.flag = d.b[8] == 1
		d.b = d.b[9:]
		c.labels = append(c.labels, l)
	}
	return c, d.err
}

// assembler gathers the calls of a trace-format upload and emits its conversations at
// the end. It keeps, per trace, the conversation id some record of the trace names (a
// root span may carry it while the model calls under it do not), whether the trace has
// a model call, and the line where it first appears.
type assembler struct {
	p       *parser
	format  string
	noun    string // what its records are called: "span", "record", "run"
	records int    // records offered, with messages or not
	sp      *spill
	index   map[string]uint32 // trace key -> trace number
	traces  []traceInfo
	buf     []byte
}

type traceInfo struct {
	id       string
	conv     string
	line     int
	hasModel bool
}

// maxTracesPerConversation bounds the trace table: a file may name at most this many
// traces per conversation it is allowed to hold (500,000 with the default limits), so
// the table, about 100 bytes a trace, stays bounded too.
const maxTracesPerConversation = 10

// traces returns the upload's assembler, starting it at the first trace record.
func (p *parser) traces(format string) *assembler {
	if p.asm == nil {
		noun := "record"
		switch {
		case strings.HasPrefix(format, "otlp"):
			noun = "span"
		case strings.HasPrefix(format, "langsmith"):
			noun = "run"
		}
		p.asm = &assembler{p: p, format: format, noun: noun, sp: newSpill(p.lim.SpillBytes, p.lim.TempDir), index: map[string]uint32{}}
		p.setFormat(format)
	}
	return p.asm
}

// add files one call under its trace, and under a conversation id when the record names
// one. The call's messages are checked against the per-message limits here, as they
// arrive.
func (a *assembler) add(traceID, convID string, c *llmCall) error {
	loc := lineLoc(c.line)
	for _, list := range [][]transcript.Message{c.system, c.input, c.output} {
		if err := a.p.checkSize(loc, list); err != nil {
			return err
		}
	}
	t, seen := a.index[traceID]
	if !seen {
		if len(a.traces) >= maxTracesPerConversation*a.p.lim.MaxConversations {
			return fileErr(ErrTooManyConversations, "ingest.too_many_traces", "N", len(a.traces), "Where", loc)
		}
		t = uint32(len(a.traces))
		a.index[traceID] = t
		a.traces = append(a.traces, traceInfo{id: traceID, line: c.line})
	}
	info := &a.traces[t]
	if info.conv == "" && convID != "" {
		info.conv = convID
	}
	if c.kind == callModel {
		info.hasModel = true
	}
	if len(a.p.problems) > 0 {
		return nil // the file is refused: its calls need not be kept
	}
	c.trace = t
	a.buf = c.encode(a.buf[:0])
	return a.sp.add(t, 0, c.at, a.buf)
}

// finish groups the traces into conversations (by conversation id, else one per trace,
// in order of first appearance), reads each conversation's calls in time order and
// emits the rebuilt conversations.
func (a *assembler) finish() error {
	defer a.sp.close()
	if len(a.p.problems) > 0 {
		return nil
	}
	group := make([]uint32, len(a.traces))
	byConv := map[string]uint32{}
	var convs []traceInfo // per group: its id and first line
	for t, info := range a.traces {
		key := "\x00" + info.id
		id := info.id
		if info.conv != "" {
			key, id = info.conv, info.conv
		}
		g, seen := byConv[key]
		if !seen {
			g = uint32(len(convs))
			byConv[key] = g
			convs = append(convs, traceInfo{id: id, line: info.line})
		}
		group[t] = g
	}
	byConv = nil
	cur, empty := -1, 0
	var r *rebuild
	done := func() error {
		if r == nil {
			return nil
		}
		emitted, err := r.emit()
		if !emitted {
			empty++
		}
		r = nil
		return err
	}
	err := a.sp.each(func(t uint32) uint32 { return group[t] }, func(g uint32, data []byte) error {
		if int(g) != cur {
			if err := done(); err != nil {
				return err
			}
			cur = int(g)
			r = newRebuild(a.p, convs[g].id, lineLoc(convs[g].line))
		}
		c, err := decodeCall(data)
		if err != nil {
			return err
		}
		if c.kind == callTop && a.traces[c.trace].hasModel {
			c.system, c.input, c.output = nil, nil, nil // its model calls say it all
		}
		return r.add(&c)
	})
	a.p.sum.SpilledBytes += a.sp.spilled()
	if err != nil {
		return err
	}
	if err := done(); err != nil {
		return err
	}
	switch {
	case len(a.p.problems) > 0:
	case a.p.sum.Conversations == 0:
		return fileErr(ErrEmpty, "ingest.no_model_calls", "Records", locale.Msg("ingest_records."+a.noun, "Count", a.records))
	case empty > 0:
		a.p.warn(lineLoc(a.traces[0].line), "ingest.empty_traces", "Count", empty)
	}
	return nil
}
