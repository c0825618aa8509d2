package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unicode"
	"unicode/utf8"
)

// parseJSONL reads one conversation object per line. Each line is decoded on its own,
// so a broken line is reported and the next one is read normally. Blank lines are
// skipped.
func (p *parser) parseJSONL(br *bufio.Reader, s sniffed) error {
	lr := &lineReader{br: br, max: p.lim.MaxLineBytes}
	line, n := s.head, s.line
	for {
		if err := p.jsonlLine(n, line); err != nil {
			return err
		}
		var err error
		line, err = lr.next()
		n++
		if errors.Is(err, io.EOF) {
			return nil
		}
		if errors.Is(err, errLineTooLong) {
			return lineTooLong(n, p.lim.MaxLineBytes)
		}
		if err != nil {
			return err
		}
	}
}

// jsonlLine handles line number n.
func (p *parser) jsonlLine(n int, line []byte) error {
	trimmed := bytes.TrimLeftFunc(line, unicode.IsSpace)
	lead := utf8.RuneCount(line[:len(line)-len(trimmed)])
	line = bytes.TrimRightFunc(trimmed, unicode.IsSpace)
	if len(line) == 0 {
		return nil
	}
	if !utf8.Valid(line) {
		return invalidUTF8(n)
	}
	loc := lineLoc(n)
	if line[0] != '{' {
		return p.badRecord(loc, "ingest.jsonl_not_object")
	}
	if hasLoneSurrogate(line) {
		return p.badRecord(loc, loneSurrogateMsg)
	}
	var e element
	if err := json.Unmarshal(line, &e); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return p.badRecordText(loc, notJSON(err, line, lead))
		}
		if err := p.begin(loc); err != nil {
			return err
		}
		p.jsonProblem(loc, "", err)
		return nil
	}
	return p.record(loc, "jsonl", &e)
}

// errLineTooLong is lineReader's signal that a line passed the limit.
var errLineTooLong = errors.New("line too long")

// lineReader returns lines without their newline. A line that fits the read buffer is
// returned straight from it; a longer one is gathered in buf, up to the limit.
type lineReader struct {
	br  *bufio.Reader
	max int
	buf []byte
}

// next returns the next line, io.EOF after the last one, or errLineTooLong. The slice is
// valid until the following call.
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		switch {
		case err == nil:
			if len(l.buf) == 0 {
				return l.fit(chunk)
			}
			l.buf = append(l.buf, chunk...)
			return l.fit(l.buf)
		case errors.Is(err, bufio.ErrBufferFull):
			l.buf = append(l.buf, chunk...)
			if len(l.buf) > l.max {
				return nil, errLineTooLong
			}
		case errors.Is(err, io.EOF):
			if len(l.buf)+len(chunk) == 0 {
				return nil, io.EOF
			}
			l.buf = append(l.buf, chunk...)
			return l.fit(l.buf)
		default:
			return nil, err
		}
	}
}

// fit strips the line ending and applies the length limit.
func (l *lineReader) fit(line []byte) ([]byte, error) {
	line = bytes.TrimRight(line, "\r\n")
	if len(line) > l.max {
		return nil, errLineTooLong
	}
	return line, nil
}
