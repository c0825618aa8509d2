package ingest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxProblems is how many located problems an Error lists; the rest are only counted,
// so a thoroughly broken file still produces a message a person can read.
const MaxProblems = 20

// Error is a file refused for problems at known places ("line 17: ..."). Parsing goes
// on after each one, so the person sees many problems per upload instead of one per try.
type Error struct {
	Problems []string // the first MaxProblems problems, in file order
	More     int      // how many further problems were found but not listed
	// Stopped is the whole-file reason that ended parsing early, when there was one:
	// problems after it in the file were never looked for.
	Stopped *FileError
}

// Error renders the listed problems one per line, then "and N more" when some were cut,
// then the reason parsing stopped, if it did.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(strings.Join(e.Problems, "\n"))
	if e.More > 0 {
		fmt.Fprintf(&b, "\nand %d more", e.More)
	}
	if e.Stopped != nil {
		b.WriteString("\n" + e.Stopped.Msg)
	}
	return b.String()
}

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
	Kind error  // one of ErrEmpty, ErrUnknownFormat, ...
	Msg  string // the sentence shown to the person
}

// Error returns the sentence.
func (e *FileError) Error() string { return e.Msg }

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
// error returned by the emit callback. Callers map it to a 4xx answer that shows
// err.Error() to the person.
func IsRejected(err error) bool {
	var located *Error
	var file *FileError
	return errors.As(err, &located) || errors.As(err, &file)
}

// fileErr builds a *FileError with a formatted sentence.
func fileErr(kind error, format string, args ...any) *FileError {
	return &FileError{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// readError is a failure of the reader the caller passed in, kept apart from problems
// with the file's content so IsRejected stays false for it.
type readError struct{ err error }

func (e *readError) Error() string { return "ingest: read: " + e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// sizeText renders a byte count the way people read limits: "8 MiB", "512 KiB".
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return countText(n) + " bytes"
}

// countText renders a non-negative count with thousands separators: 50000 -> "50,000".
func countText[T int | int64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
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
