package ingest

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/db/locale"
)

// kind is how the text is laid out, which decides the reader used.
type kind int

const (
	kindJSONL kind = iota // one JSON object per line
	kindJSON              // one JSON document (array or object), possibly over many lines
	kindCSV               // a header row, then one message per row
	kindOTLP              // OpenTelemetry OTLP JSON: {"resourceSpans": [...]}, one or many
)

// sniffed is what sniff learned from the start of the text.
type sniffed struct {
	kind  kind
	line  int    // line number of head's first byte
	head  []byte // bytes consumed while sniffing, to be parsed first
	jsonl bool   // for kindOTLP: the first object is a whole line
}

// reader returns the whole text again: the sniffed head, then the rest.
func (s sniffed) reader(rest io.Reader) io.Reader {
	return io.MultiReader(bytes.NewReader(s.head), rest)
}

// sniff decides the format from the first bytes of the text. It skips a UTF-8 byte order
// mark and leading blank space, then: '[' is a JSON document; '{' is JSONL when the first
// line is a whole JSON object by itself (and not a {"conversations": [...]} wrapper),
// otherwise a JSON document; anything else must be a CSV header naming known columns,
// or at least reading like one (then parsing says which columns are missing). Anything
// else is refused with what it looks like (plain text, an image, ...).
func sniff(br *bufio.Reader, maxLine int) (sniffed, error) {
	if err := skipBOM(br); err != nil {
		return sniffed{}, err
	}
	line, indent, err := skipSpace(br, maxLine)
	if err != nil {
		return sniffed{}, err
	}
	peek, err := br.Peek(1)
	if err != nil {
		return sniffed{}, err
	}
	first := peek[0] // read now: the buffer changes below
	if first == '[' {
		return sniffed{kind: kindJSON, line: line}, nil
	}
	head, complete, err := readHead(br, maxLine)
	if err != nil {
		return sniffed{}, err
	}
	s := sniffed{kind: kindJSON, line: line, head: head}
	if first == '{' {
		lines := complete && json.Valid(head)
		if key := firstKey(head, br); isOTLPKey(key) {
			s.kind, s.jsonl = kindOTLP, lines
			return s, nil
		}
		if lines && !isWrapper(head) {
			s.kind = kindJSONL
		}
		return s, nil
	}
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		if bytes.Contains(head, []byte("[Content_Types].xml")) || bytes.Contains(head, []byte("xl/")) {
			return sniffed{}, fileErr(ErrUnknownFormat, "ingest.excel")
		}
		return sniffed{}, fileErr(ErrUnknownFormat, "ingest.zip")
	}
	s.head = append(indent, head...)
	if l, ok := csvHeader(s.head); !ok && !csvLike(l, nextLine(br)) {
		return sniffed{}, fileErr(ErrUnknownFormat, "ingest.unknown_format", "Looks", looksLike(head))
	}
	s.kind = kindCSV
	return s, nil
}

// firstKey returns the first key of the object the text starts with, looking in the
// head and in what is already buffered after it ("" when there is none so near).
func firstKey(head []byte, br *bufio.Reader) string {
	const near = 4 << 10
	b := head[:min(len(head), near)]
	if len(b) < near {
		more, _ := br.Peek(min(br.Buffered(), near))
		b = append(append([]byte(nil), b...), more...)
	}
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 || b[0] != '{' {
		return ""
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	if len(b) == 0 || b[0] != '"' {
		return ""
	}
	end := bytes.IndexByte(b[1:], '"')
	if end < 0 {
		return ""
	}
	return string(b[1 : end+1])
}

// isOTLPKey reports whether an object's first key is an OTLP export's.
func isOTLPKey(key string) bool {
	switch foldKey(key) {
	case "resourcespans", "resourcelogs", "resourcemetrics":
		return true
	}
	return false
}

// csvLike reports whether a first line that names no known column still reads as a CSV
// header (two or more short titles, and a next line with as many fields), so the person
// is told which columns are missing instead of that the file is not CSV at all.
func csvLike(l csvLayout, next []byte) bool {
	if len(l.titles) < 2 {
		return false
	}
	for _, t := range l.titles {
		if len(t) > 40 || len(strings.Fields(t)) > 4 || strings.ContainsAny(t, "?!") {
			return false
		}
	}
	if len(bytes.TrimSpace(next)) == 0 {
		return true
	}
	r := csv.NewReader(bytes.NewReader(next))
	r.Comma = l.comma
	r.LazyQuotes = true
	fields, err := r.Read()
	return err == nil && len(fields) == len(l.titles)
}

// nextLine returns the line after the head when it is already buffered, else nil.
func nextLine(br *bufio.Reader) []byte {
	rest, _ := br.Peek(br.Buffered())
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		return rest[:i]
	}
	return rest
}

// looksLike names what a file that is in no accepted format seems to be, from its first
// line, so the person learns what they uploaded before reading what is accepted.
func looksLike(head []byte) locale.Text {
	lower := bytes.ToLower(bytes.TrimSpace(head))
	kind := "text"
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG")):
		kind = "png"
	case bytes.HasPrefix(head, []byte{0xff, 0xd8, 0xff}):
		kind = "jpeg"
	case bytes.HasPrefix(head, []byte("GIF8")):
		kind = "gif"
	case bytes.HasPrefix(head, []byte("RIFF")) && bytes.Contains(head, []byte("WEBP")):
		kind = "webp"
	case bytes.HasPrefix(head, []byte("%PDF-")):
		kind = "pdf"
	case bytes.HasPrefix(lower, []byte("<!doctype html")), bytes.HasPrefix(lower, []byte("<html")):
		kind = "html"
	case bytes.HasPrefix(lower, []byte("<?xml")):
		kind = "xml"
	case !utf8.Valid(head) || bytes.IndexByte(head, 0) >= 0:
		kind = "binary"
	}
	return locale.Msg("looks_like." + kind)
}

// skipBOM drops a UTF-8 byte order mark and refuses UTF-16 text with a clear sentence.
func skipBOM(br *bufio.Reader) error {
	b, err := br.Peek(3)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	switch {
	case bytes.HasPrefix(b, []byte{0xef, 0xbb, 0xbf}):
		_, err = br.Discard(3)
		return err
	case bytes.HasPrefix(b, []byte{0xff, 0xfe}), bytes.HasPrefix(b, []byte{0xfe, 0xff}):
		return fileErr(ErrInvalidUTF8, "ingest.utf16")
	}
	return nil
}

// skipSpace consumes leading JSON white space and returns the line number of the first
// byte after it, with the blanks consumed on that line (a CSV header keeps them: a
// leading tab may be a delimiter). A file that is nothing but space is empty. Blanks
// count towards their line's maxLine bytes, so a file that starts with one endless run
// of them is refused once the run passes that, not held.
func skipSpace(br *bufio.Reader, maxLine int) (line int, indent []byte, err error) {
	line = 1
	for {
		c, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			return 0, nil, fileErr(ErrEmpty, "ingest.empty")
		}
		if err != nil {
			return 0, nil, err
		}
		switch c {
		case '\n':
			line++
			indent = indent[:0]
		case ' ', '\t', '\r':
			if maxLine > 0 && len(indent) >= maxLine {
				return 0, nil, lineTooLong(line, maxLine)
			}
			indent = append(indent, c)
		default:
			return line, indent, br.UnreadByte()
		}
	}
}

// readHead consumes the first line, newline included, but no more than maxLine+1 bytes.
// complete is false when the line was cut at that size.
func readHead(br *bufio.Reader, maxLine int) (head []byte, complete bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		head = append(head, chunk...)
		switch {
		case err == nil, errors.Is(err, io.EOF):
			return head, len(bytes.TrimRight(head, "\r\n")) <= maxLine, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(head) > maxLine {
				return head, false, nil
			}
		default:
			return nil, false, err
		}
	}
}

// probe is the shape isWrapper looks for.
type probe struct {
	Conversations []struct {
		Messages      *skipValue `json:"messages"`
		Conversations *skipValue `json:"conversations"`
	} `json:"conversations"`
}

// isWrapper reports whether a one-line JSON object is a {"conversations": [...]} list of
// whole conversations rather than one ShareGPT conversation.
func isWrapper(obj []byte) bool {
	var pr probe
	if json.Unmarshal(obj, &pr) != nil || len(pr.Conversations) == 0 {
		return false
	}
	c := pr.Conversations[0]
	return c.Messages != nil || c.Conversations != nil
}
