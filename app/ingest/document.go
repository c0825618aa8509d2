package ingest

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// errStop ends a JSON document early after its last problem was recorded: the decoder
// cannot find its place again after a syntax error.
var errStop = errors.New("stop")

// doc reads one JSON document as a stream of tokens, decoding one conversation at a
// time, so the whole array is never in memory.
type doc struct {
	p   *parser
	g   *guard
	dec *json.Decoder
}

// parseDocument reads a JSON array of conversations, a {"conversations": [...]} wrapper,
// or a single conversation object (pretty-printed), and any sequence of these.
func (p *parser) parseDocument(r io.Reader, firstLine int) error {
	d := p.newDoc(r, firstLine)
	err := d.values()
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// newDoc starts reading a JSON text through a guard that checks its encoding, locates
// its lines and bounds how far the decoder may read ahead of the value it decodes.
func (p *parser) newDoc(r io.Reader, firstLine int) *doc {
	g := &guard{
		r:         r,
		firstLine: firstLine,
		track:     true,
		maxValue:  p.lim.MaxLineBytes,
		// The decoder reads ahead of the value it decodes by at most one short read
		// (jsonReadChunk); past this bound the value is over the limit.
		maxAhead: int64(p.lim.MaxLineBytes) + 2*jsonReadChunk,
		surr:     &surrogates{},
		onSurrogate: func(line int) {
			p.problem(lineLoc(line), loneSurrogateMsg)
		},
	}
	return &doc{p: p, g: g, dec: json.NewDecoder(g)}
}

// values reads the top-level values one after another.
func (d *doc) values() error {
	for {
		if !d.dec.More() {
			line := d.line()
			_, err := d.dec.Token()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return d.fail(line, err)
		}
		line := d.line()
		tok, err := d.dec.Token()
		if err != nil {
			return d.fail(line, err)
		}
		switch tok {
		case json.Delim('['):
			err = d.array()
		case json.Delim('{'):
			err = d.object(line)
		default:
			d.p.problem(lineLoc(line), "ingest.document_shape")
		}
		if err != nil {
			return err
		}
	}
}

// array streams the conversations of a JSON array.
func (d *doc) array() error {
	for d.dec.More() {
		line, e, err := d.decodeElement()
		if err != nil {
			return err
		}
		loc := lineLoc(line)
		if e == nil {
			if err := d.p.begin(loc); err != nil { // a type mismatch, already recorded
				return err
			}
			continue
		}
		if err := d.p.record(loc, "json", e); err != nil {
			return err
		}
	}
	return d.close()
}

// object reads a top-level object: a wrapper whose "conversations" are whole
// conversations, one conversation itself (OpenAI or Anthropic "messages", or ShareGPT
// turns under "conversations", gathered as they stream), a wrapper of trace records
// ("data", "runs", "traces", "observations", "scores": a Langfuse or LangSmith export),
// or one trace record (a Langfuse trace with its observations and scores).
func (d *doc) object(open int) error {
	var self element
	wrapped, items := 0, 0
	var rest []byte // the object's other keys, as a JSON object body
	for d.dec.More() {
		line := d.line()
		tok, err := d.dec.Token()
		if err != nil {
			return d.fail(line, err)
		}
		key, _ := tok.(string)
		switch {
		case strings.EqualFold(key, "conversations"):
			n, err := d.conversations(open, &self)
			if err != nil {
				return err
			}
			wrapped += n
		case strings.EqualFold(key, "messages"):
			err = d.field(key, &self.Messages)
		case strings.EqualFold(key, "conversation_id"):
			err = d.field(key, &self.ConversationID)
		case strings.EqualFold(key, "id"):
			err = d.field(key, &self.ID)
		case strings.EqualFold(key, "metadata"):
			err = d.field(key, &self.Metadata)
		case strings.EqualFold(key, "system"):
			err = d.field(key, &self.System)
		case isRecordList(key):
			n, err := d.records()
			if err != nil {
				return err
			}
			items += n
			if strings.EqualFold(key, "observations") && self.Observations == nil {
				self.Observations = []json.RawMessage{} // a trace with its observations
			}
		default:
			var raw json.RawMessage
			if err = d.field(key, &raw); err == nil {
				if rest, err = appendMember(rest, key, raw, d.p.lim.MaxLineBytes); err != nil {
					err = d.g.valueTooLarge(d.g.mark)
				}
			}
		}
		if err != nil {
			return err
		}
	}
	if err := d.close(); err != nil {
		return err
	}
	if len(rest) > 0 {
		_ = json.Unmarshal(append(append([]byte{'{'}, rest...), '}'), &self.traceRecord)
	}
	loc := lineLoc(open)
	switch {
	case wrapped > 0 && (len(self.Conversations) > 0 || self.Messages != nil):
		d.p.problem(loc, "ingest.document_both")
		return nil
	case wrapped > 0:
		return nil
	case items > 0 && !self.isConversation() && self.traceShape() == noTrace:
		return nil // a wrapper of records, such as {"data": [...], "meta": {...}}
	}
	return d.p.record(loc, "json", &self)
}

// isRecordList reports whether a top-level key holds a list of trace records.
func isRecordList(key string) bool {
	for _, k := range []string{"data", "runs", "traces", "observations", "scores"} {
		if strings.EqualFold(key, k) {
			return true
		}
	}
	return false
}

// appendMember adds "key": raw to a JSON object body, up to limit bytes.
func appendMember(body []byte, key string, raw json.RawMessage, limit int) ([]byte, error) {
	k, _ := json.Marshal(key)
	if len(body)+len(k)+len(raw)+2 > limit {
		return body, errTooLarge
	}
	if len(body) > 0 {
		body = append(body, ',')
	}
	body = append(append(append(body, k...), ':'), raw...)
	return body, nil
}

// errTooLarge is appendMember's signal that the object passed the limit.
var errTooLarge = errors.New("too large")

// records streams a list of trace records. Entries that are not objects (the ids a
// Langfuse trace lists instead of its observations) are skipped.
func (d *doc) records() (int, error) {
	line := d.line()
	tok, err := d.dec.Token()
	if err != nil {
		return 0, d.fail(line, err)
	}
	if tok != json.Delim('[') {
		return 0, d.skipRest(tok)
	}
	n := 0
	for d.dec.More() {
		start := d.start()
		line := d.g.lineAt(start)
		var raw json.RawMessage
		if err := d.dec.Decode(&raw); err != nil {
			return 0, d.fail(line, err)
		}
		if d.dec.InputOffset()-start > int64(d.p.lim.MaxLineBytes) {
			return 0, d.g.valueTooLarge(start)
		}
		if len(raw) == 0 || raw[0] != '{' {
			continue
		}
		var e element
		loc := lineLoc(line)
		if err := json.Unmarshal(raw, &e); err != nil {
			if err := d.p.begin(loc); err != nil {
				return 0, err
			}
			d.p.jsonProblem(loc, "", err)
			continue
		}
		n++
		if err := d.p.record(loc, "json", &e); err != nil {
			return 0, err
		}
	}
	return n, d.close()
}

// conversations streams the "conversations" array of a top-level object. Entries that
// are whole conversations are recorded at once and counted in the result; entries that
// are ShareGPT turns are gathered into self.
func (d *doc) conversations(open int, self *element) (int, error) {
	line := d.line()
	tok, err := d.dec.Token()
	if err != nil {
		return 0, d.fail(line, err)
	}
	if tok != json.Delim('[') {
		d.p.problem(lineLoc(line), "ingest.conversations_array")
		return 0, d.skipRest(tok)
	}
	if self.Conversations == nil {
		self.Conversations = make([]turn, 0, 16)
	}
	wrapped, turnBytes := 0, 0
	for d.dec.More() {
		line, e, err := d.decodeElement()
		if err != nil {
			return 0, err
		}
		loc := lineLoc(line)
		switch {
		case e == nil:
			// A type mismatch, already recorded.
		case e.isConversation():
			wrapped++
			if err := d.p.record(loc, "json", e); err != nil {
				return 0, err
			}
		default:
			// A turn of the object's own conversation: the limits are checked as the
			// turns arrive, not once they are all gathered.
			if len(self.Conversations) >= d.p.lim.MaxMessages {
				return 0, d.p.tooManyMessages(lineLoc(open))
			}
			n := e.turn.size()
			if n > d.p.lim.MaxMessageChars {
				if chars := e.turn.chars(); chars > d.p.lim.MaxMessageChars {
					return 0, d.p.messageTooLong(loc, chars)
				}
			}
			if turnBytes += n; turnBytes > d.p.lim.MaxLineBytes {
				return 0, d.p.conversationTooLarge(lineLoc(open))
			}
			self.Conversations = append(self.Conversations, e.turn)
		}
	}
	return wrapped, d.close()
}

// decodeElement decodes the next array entry. e is nil when the entry was not a JSON
// object of the expected shape; that problem has been recorded.
func (d *doc) decodeElement() (line int, e *element, err error) {
	start := d.start()
	line = d.g.lineAt(start)
	e = new(element)
	if err := d.dec.Decode(e); err != nil {
		var typ *json.UnmarshalTypeError
		if !errors.As(err, &typ) {
			return line, nil, d.fail(line, err)
		}
		d.p.jsonProblem(lineLoc(line), "", err)
		e = nil
	}
	if d.dec.InputOffset()-start > int64(d.p.lim.MaxLineBytes) {
		return line, nil, d.g.valueTooLarge(start)
	}
	return line, e, nil
}

// field decodes the value after key into v, recording a type mismatch as a problem.
func (d *doc) field(key string, v any) error {
	start := d.start()
	line := d.g.lineAt(start)
	if err := d.dec.Decode(v); err != nil {
		var typ *json.UnmarshalTypeError
		if !errors.As(err, &typ) {
			return d.fail(line, err)
		}
		d.p.jsonProblem(lineLoc(line), key, err)
	}
	if d.dec.InputOffset()-start > int64(d.p.lim.MaxLineBytes) {
		return d.g.valueTooLarge(start)
	}
	return nil
}

// close reads the delimiter that ends the current array or object.
func (d *doc) close() error {
	line := d.line()
	if _, err := d.dec.Token(); err != nil {
		return d.fail(line, err)
	}
	return nil
}

// skipRest consumes the rest of a value whose first token was tok.
func (d *doc) skipRest(tok json.Token) error {
	depth := 0
	for {
		if delim, ok := tok.(json.Delim); ok {
			if delim == '[' || delim == '{' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
		line := d.line()
		var err error
		tok, err = d.dec.Token()
		if err != nil {
			return d.fail(line, err)
		}
	}
}

// start returns the offset where the next value begins: the decoder's position moved
// past the separators and white space it has already buffered. It also marks that
// offset in the guard, which bounds how far reading may run ahead of it.
func (d *doc) start() int64 {
	off := d.dec.InputOffset()
	if buf, ok := d.dec.Buffered().(io.ByteReader); ok {
		for {
			c, err := buf.ReadByte()
			if err != nil || (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != ',' && c != ':') {
				break
			}
			off++
		}
	}
	d.g.mark = off
	return off
}

// line returns the line number where the next token begins.
func (d *doc) line() int { return d.g.lineAt(d.start()) }

// fail turns an error from the decoder into the result of parsing: whole-file and read
// errors pass through; a syntax error or a cut-off document is recorded at line and
// stops the document.
func (d *doc) fail(line int, err error) error {
	var fe *FileError
	var re *readError
	switch {
	case errors.As(err, &fe), errors.As(err, &re):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		d.p.problem(lineLoc(line), "ingest.document_cut")
	default:
		d.p.problemText(lineLoc(line), notJSON(err, nil, 0))
	}
	return errStop
}
