package ingest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/db/locale"
)

// MaxProblems is how many located problems an Error lists; the rest are only counted,
// so a thoroughly broken file still produces a message a person can read.
const MaxProblems = 20

// Error is a file refused for problems at known places ("line 17: ..."). Parsing goes
// on after each one, so the person sees many problems per upload instead of one per try.
// The problems are Texts, written in the reader's language by whoever shows them.
type Error struct {
	Problems []locale.Text // the first MaxProblems problems, in file order
	More     int           // how many further problems were found but not listed
	// Stopped is the whole-file reason that ended parsing early, when there was one:
	// problems after it in the file were never looked for.
	Stopped *FileError
}

// Error lists the problems' message keys, for logs; Lines writes them for people.
func (e *Error) Error() string {
	parts := make([]string, 0, len(e.Problems)+1)
	for _, p := range e.Problems {
		parts = append(parts, p.String())
	}
	if e.Stopped != nil {
		parts = append(parts, e.Stopped.Msg.String())
	}
	return fmt.Sprintf("ingest: file refused: %s and %d more", strings.Join(parts, "; "), e.More)
}

// Lines writes the listed problems one per line, then "and N more" when some were cut,
// then the reason parsing stopped, if it did.
func (e *Error) Lines(l *locale.Localizer) []string {
	lines := make([]string, 0, len(e.Problems)+2)
	for _, p := range e.Problems {
		lines = append(lines, l.Text(p))
	}
	if e.More > 0 {
		lines = append(lines, l.T("upload.more_problems", "N", e.More))
	}
	if e.Stopped != nil {
		lines = append(lines, l.Text(e.Stopped.Msg))
	}
	return lines
}

// Note is a problem or a warning at a place in the file: where ("line 17") and what.
type Note struct {
	Where, What locale.Text
}

// Text is the note as one sentence: "line 17: ...".
func (n Note) Text() locale.Text { return locale.Msg("ingest.at", "Where", n.Where, "What", n.What) }

// Unwrap returns the whole-file error that stopped parsing, if any, so errors.Is finds
// its reason through an *Error too.
func (e *Error) Unwrap() error {
	if e.Stopped == nil {
		return nil
	}
	return e.Stopped
}

// FileError is a file refused as a whole for one reason that a single sentence states
// (empty, unknown format, over a limit, not UTF-8). Unwrap returns one of the Err
// sentinels so callers can branch on the reason with errors.Is.
type FileError struct {
	Kind error       // one of ErrEmpty, ErrUnknownFormat, ...
	Msg  locale.Text // the sentence shown to the person
}

// Error names the reason and the sentence's message key, for logs.
func (e *FileError) Error() string { return e.Kind.Error() + " " + e.Msg.String() }

// Unwrap returns the reason, for errors.Is.
func (e *FileError) Unwrap() error { return e.Kind }

// The reasons a file is refused as a whole; each FileError unwraps to one of these.
// ErrLineTooLong also covers one conversation of a JSON document over MaxLineBytes.
var (
	ErrEmpty                = errors.New("ingest: empty file")
	ErrUnknownFormat        = errors.New("ingest: unknown format")
	ErrInvalidUTF8          = errors.New("ingest: invalid UTF-8")
	ErrLineTooLong          = errors.New("ingest: line too long")
	ErrTooManyConversations = errors.New("ingest: too many conversations")
	ErrTooManyMessages      = errors.New("ingest: too many messages")
	ErrMessageTooLong       = errors.New("ingest: message too long")
	ErrTooLarge             = errors.New("ingest: decompressed size over the limit")
	ErrBadGzip              = errors.New("ingest: damaged gzip data")
	ErrCSVHeader            = errors.New("ingest: CSV header lacks a required column")
)

// IsRejected reports whether err means the uploaded file itself was refused (a located
// *Error or a whole-file *FileError), as opposed to a failure to read the upload or an
// error returned by the emit callback. Callers map it to a 4xx answer that shows its
// sentences to the person.
func IsRejected(err error) bool {
	var located *Error
	var file *FileError
	return errors.As(err, &located) || errors.As(err, &file)
}

// fileErr builds a *FileError whose sentence is message id with its arguments.
func fileErr(kind error, id string, args ...any) *FileError {
	return &FileError{Kind: kind, Msg: locale.Msg(id, args...)}
}

// readError is a failure of the reader the caller passed in, kept apart from problems
// with the file's content so IsRejected stays false for it.
type readError struct{ err error }

func (e *readError) Error() string { return "ingest: read: " + e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// sizeText renders a byte count the way people read limits: "8 MiB", "512 KiB".
func sizeText(n int64) locale.Text {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return locale.Msg("ingest.mib", "N", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return locale.Msg("ingest.kib", "N", n>>10)
	}
	return locale.Msg("ingest.bytes", "Count", n)
}

// quote renders a value from the file for a message: quoted, and cut to its first 40
// characters so that one absurd value cannot flood the page.
func quote(s string) string {
	head, rest := split40(s)
	return strconv.Quote(head) + rest
}

// cut is quote without the quotes, for values that read well bare (CSV titles).
func cut(s string) string {
	head, rest := split40(s)
	return head + rest
}

// split40 returns the first 40 characters of s, and "..." when there were more.
func split40(s string) (head, rest string) {
	const keep = 40
	if utf8.RuneCountInString(s) <= keep {
		return s, ""
	}
	i := 0
	for n := 0; n < keep; n++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i], "..."
}
