package ingest

import (
	"errors"
	"io"
	"strconv"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
)

// Summary describes a parsed upload for the task record and the upload page.
type Summary struct {
	// Format names what was read: the Name of one of transcript.Formats
	// (docs/formats.md).
	Format string
	// Gzip is true when the upload was gzip-compressed.
	Gzip bool
	// Conversations and Messages count what was handed to emit.
	Conversations int
	Messages      int
	// DecompressedBytes is the size of the text after un-gzipping.
	DecompressedBytes int64
	// Warnings are things changed or worth knowing on the way in (a duplicate id
	// renamed, a conversation with no messages kept), first MaxProblems of them;
	// MoreWarnings counts the rest.
	Warnings     []Note
	MoreWarnings int
	// Labels are the outcome labels read from the conversations' metadata or a CSV
	// column (see label.go for the fields and their precedence).
	Labels Labels
	// Skipped counts content the formats carry but the transcript has no place for,
	// by kind ("thinking", "redacted_thinking", "image", ...); nil when nothing was
	// skipped. A warning says the same.
	Skipped map[string]int
	// SpilledBytes is how much of the upload waited in a temporary file because it did
	// not fit the in-memory budget (Limits.SpillBytes): CSV rows of interleaved
	// conversations, trace spans spread over the file. 0 when everything fit.
	SpilledBytes int64
}

// Parse reads one upload from r and calls emit with each valid conversation, in file
// order, as soon as it is complete (CSV and the trace formats are the exception: their
// records may come in any order, so their conversations are emitted at the end, in order
// of first appearance).
//
// The error is nil, an *Error (problems by line, possibly ending with a whole-file
// reason), a *FileError (a whole-file reason alone), an error from emit (wrapped), or a
// failure to read r (wrapped); IsRejected tells the first two from the rest. Once a
// problem is found emit is no longer called, but it may already have been called for
// earlier conversations: a caller that stores them must discard everything when Parse
// returns an error (roll back its transaction). A nil emit only validates.
func Parse(r io.Reader, lim Limits, emit func(transcript.Conversation) error) (Summary, error) {
	if emit == nil {
		emit = func(transcript.Conversation) error { return nil }
	}
	p := &parser{
		lim:  lim.withDefaults(),
		emit: emit,
		ids:  make(map[string]int),
	}
	in, err := open(r, p.lim.MaxDecompressedBytes)
	if err != nil {
		return p.sum, p.result(err)
	}
	p.sum.Gzip = in.gzipped
	err = p.parse(in)
	p.sum.DecompressedBytes = in.count.n
	p.labels.finish(p)
	p.finishSkipped()
	return p.sum, p.result(err)
}

// parser holds the state shared by every format: limits, counts, the ids taken so far
// and the problems found.
type parser struct {
	lim        Limits
	emit       func(transcript.Conversation) error
	sum        Summary
	problems   []locale.Text
	more       int
	ids        map[string]int // id -> next suffix to try if it comes again
	records    int            // conversations met so far, valid or not
	labels     labeller
	skipped    skipCount
	csvRepairs csvRepairs
	asm        *assembler // the calls of a trace-format upload; nil for the others
}

// parse sniffs the format and runs the matching reader.
func (p *parser) parse(in *input) error {
	s, err := sniff(in.text, p.lim.MaxLineBytes)
	if err != nil {
		return err
	}
	switch s.kind {
	case kindJSONL:
		err = p.parseJSONL(in.text, s)
	case kindJSON:
		err = p.parseDocument(s.reader(in.text), s.line)
	case kindOTLP:
		container := "json"
		if s.jsonl {
			container = "jsonl"
		}
		err = p.parseOTLP(s.reader(in.text), s.line, container)
	default:
		err = p.parseCSV(s.reader(in.text), s)
	}
	if p.asm != nil {
		if err == nil {
			err = p.asm.finish()
		} else {
			p.asm.sp.close()
		}
	}
	if err == nil && p.records == 0 && len(p.problems) == 0 {
		return fileErr(ErrEmpty, "ingest.empty_file")
	}
	return err
}

// problem records a located problem, message id with its arguments; only the first
// MaxProblems are kept.
func (p *parser) problem(loc locale.Text, id string, args ...any) {
	p.problemText(loc, locale.Msg(id, args...))
}

// problemText records a located problem whose sentence is what.
func (p *parser) problemText(loc, what locale.Text) {
	if len(p.problems) >= MaxProblems {
		p.more++
		return
	}
	p.problems = append(p.problems, Note{Where: loc, What: what}.Text())
}

// warn records a change made to the data on the way in.
func (p *parser) warn(loc locale.Text, id string, args ...any) {
	if len(p.sum.Warnings) >= MaxProblems {
		p.sum.MoreWarnings++
		return
	}
	p.sum.Warnings = append(p.sum.Warnings, Note{Where: loc, What: locale.Msg(id, args...)})
}

// result combines the error that stopped parsing with the problems collected before it.
func (p *parser) result(err error) error {
	var fe *FileError
	switch {
	case err != nil && !errors.As(err, &fe):
		return err // a read or emit failure: not about the file's content
	case len(p.problems) == 0 && err == nil:
		return nil
	case len(p.problems) == 0:
		return err
	}
	e := &Error{Problems: p.problems, More: p.more}
	if err != nil {
		e.Stopped = fe
	}
	return e
}

// lineLoc names a line of the file for a problem.
func lineLoc(n int) locale.Text { return locale.Msg("ingest.line", "N", strconv.Itoa(n)) }

// rowLoc names a row of a CSV file for a problem.
func rowLoc(n int) locale.Text { return locale.Msg("ingest.row", "N", strconv.Itoa(n)) }
