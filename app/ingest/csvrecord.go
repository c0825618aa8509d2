package ingest

import "strconv"

// csvRecord follows a CSV text byte by byte as encoding/csv reads it, to know where
// each record ends: a newline in a quoted field belongs to the record, which the
// reader buffers whole however many lines it spans.
type csvRecord struct {
	comma     byte // the field separator; 0 when the guard reads no CSV
	inQuotes  bool
	quoteEnds bool // the last byte closed a quoted field, or is the first of an escaped ""
	atField   bool // the next byte starts a field
	length    int  // bytes of the current record so far
	firstLine int  // its first line, counted from the guard's first
}

// checkRecords refuses a record once it is longer than the line limit, at its first
// line.
func (g *guard) checkRecords(b []byte) error {
	r := &g.csv
	line := g.lines
	for _, c := range b {
		if r.length == 0 {
			r.firstLine, r.atField = line, true
		}
		r.length++
		switch {
		case c == '\n':
			line++
			if !r.inQuotes {
				r.length, r.quoteEnds = 0, false
				continue
			}
		case r.inQuotes:
			if c == '"' {
				r.inQuotes, r.quoteEnds = false, true
			}
		case c == '"' && (r.atField || r.quoteEnds):
			r.inQuotes, r.quoteEnds, r.atField = true, false, false
		default:
			r.quoteEnds, r.atField = false, c == r.comma
		}
		if g.maxLine > 0 && r.length > g.maxLine {
			return recordTooLong(g.firstLine+r.firstLine, g.maxLine)
		}
	}
	return nil
}

// recordTooLong is the error for a CSV record over the limit.
func recordTooLong(line, limit int) error {
	return fileErr(ErrLineTooLong, "ingest.csv_record_too_long", "Line", strconv.Itoa(line), "Size", sizeText(int64(limit)))
}
