package ingest

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"
)

// guard checks text on its way to a reader that cannot check it itself: encoding/json
// silently replaces invalid UTF-8, and encoding/csv buffers a line of any length. It
// refuses invalid UTF-8 and over-long lines with their line number, and for JSON
// documents it remembers where lines end, so a byte offset reported by the decoder can be
// turned back into a line number, and bounds how far reading may run ahead of the value
// being decoded.
type guard struct {
	r         io.Reader
	firstLine int   // line number of the first byte
	lines     int   // newlines passed so far
	off       int64 // bytes passed so far
	maxLine   int   // longest line allowed in bytes; 0 for no limit
	lineLen   int   // bytes of the current line so far
	carry     []byte
	err       error

	// For CSV: the limit applies to a whole record, whose quoted fields may hold
	// newlines; csv tracks where the reader is in the record.
	csv csvRecord

	// For JSON documents: where lines end ahead of the last line number asked for, and
	// the bound on reading ahead of mark, where the value being decoded starts.
	track    bool
	nl       newlines
	mark     int64
	maxAhead int64
	maxValue int

	// For JSON text: lone surrogate escapes are reported by line to onSurrogate.
	surr        *surrogates
	onSurrogate func(line int)
}

// jsonReadChunk is the most one Read hands a JSON decoder. The decoder reads again
// only when the value it decodes needs more, so short reads keep what it holds ahead of
// that value small, and a value over the limit is refused after about the limit's size
// instead of four times it (its buffer grows by doubling: twice as much again).
const jsonReadChunk = 64 << 10

// Read passes text through, failing with a *FileError at the first problem.
func (g *guard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.track && len(p) > jsonReadChunk {
		p = p[:jsonReadChunk]
	}
	n, err := g.r.Read(p)
	if n > 0 {
		if cerr := g.check(p[:n]); cerr != nil {
			g.err = cerr
			return 0, cerr
		}
	}
	if errors.Is(err, io.EOF) && len(g.carry) > 0 {
		g.err = invalidUTF8(g.firstLine + g.lines)
		return 0, g.err
	}
	return n, err
}

// check validates one chunk and updates the line bookkeeping.
func (g *guard) check(b []byte) error {
	if i := g.badUTF8(b); i >= 0 {
		return invalidUTF8(g.firstLine + g.lines + bytes.Count(b[:i], []byte{'\n'}))
	}
	if g.surr != nil {
		for at := 0; at < len(b); {
			i := g.surr.scan(b[at:])
			if i < 0 {
				break
			}
			g.onSurrogate(g.firstLine + g.lines + bytes.Count(b[:at+i], []byte{'\n'}))
			at += i + 1
		}
	}
	if g.csv.comma != 0 {
		if err := g.checkRecords(b); err != nil {
			return err
		}
	}
	rest, base := b, g.off
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			g.lineLen += len(rest)
			break
		}
		g.lineLen += i
		if err := g.checkLine(); err != nil {
			return err
		}
		if g.track {
			g.nl.add(base + int64(i))
		}
		g.lines++
		g.lineLen = 0
		base += int64(i) + 1
		rest = rest[i+1:]
	}
	if err := g.checkLine(); err != nil {
		return err
	}
	g.off += int64(len(b))
	if g.maxAhead > 0 && g.off-g.mark > g.maxAhead {
		return g.valueTooLarge(g.mark)
	}
	return nil
}

// checkLine refuses the current line once it is longer than the limit.
func (g *guard) checkLine() error {
	if g.maxLine > 0 && g.lineLen > g.maxLine && g.csv.comma == 0 {
		return lineTooLong(g.firstLine+g.lines, g.maxLine)
	}
	return nil
}

// badUTF8 returns the index in b of the first byte that is not valid UTF-8, or -1. A
// sequence cut at the end of b is carried over to the next chunk.
func (g *guard) badUTF8(b []byte) int {
	start := 0
	if len(g.carry) > 0 {
		for start < len(b) && !utf8.FullRune(g.carry) {
			g.carry = append(g.carry, b[start])
			start++
		}
		if !utf8.FullRune(g.carry) {
			return -1
		}
		if r, size := utf8.DecodeRune(g.carry); r == utf8.RuneError && size <= 1 {
			return 0
		}
		g.carry = g.carry[:0]
	}
	end := len(b)
	for i := len(b) - 1; i >= start && i > len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				end = i
			}
			break
		}
	}
	body := b[start:end]
	if utf8.Valid(body) {
		g.carry = append(g.carry, b[end:]...)
		return -1
	}
	for i := 0; i < len(body); {
		r, size := utf8.DecodeRune(body[i:])
		if r == utf8.RuneError && size == 1 {
			return start + i
		}
		i += size
	}
	return -1
}

// lineAt returns the line number of byte offset off. Offsets must not go backwards
// between calls: the newlines before off are counted and forgotten.
func (g *guard) lineAt(off int64) int {
	return g.firstLine + g.nl.countBefore(off)
}

// valueTooLarge is the error for one JSON value (a conversation) over the size limit.
func (g *guard) valueTooLarge(start int64) error {
	return fileErr(ErrLineTooLong, "ingest.conversation_too_large_line", "Line", strconv.Itoa(g.lineAt(start)), "Size", sizeText(int64(g.maxValue)))
}

// invalidUTF8 is the error for text that is not UTF-8.
func invalidUTF8(line int) error {
	return fileErr(ErrInvalidUTF8, "ingest.not_utf8", "Line", strconv.Itoa(line))
}

// lineTooLong is the error for a line over the limit.
func lineTooLong(line, limit int) error {
	return fileErr(ErrLineTooLong, "ingest.line_too_long", "Line", strconv.Itoa(line), "Size", sizeText(int64(limit)))
}
