package web

import (
	"cmp"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/db/locale"
)

// The upload form is read as a stream, part by part, in the order the browser sends it:
// _csrf (already checked by auth.Guard), title, file. The file part is written to a
// temporary file as it arrives (never held in memory), and a title sent after it is read
// too, before the task's transaction starts: however slowly the client sends, it holds
// no database connection.

const (
	fieldTitle = "title"
	fieldAgent = "agent"
	// fieldLanguage is what a model writes the diagnosis in: locale.English or
	// locale.Chinese.
	fieldLanguage = "language"
	fieldFile     = "file"
	// maxAgentChars is the longest agent name the agent table takes.
	maxAgentChars = 200
	// maxTitleChars is the longest title the task table takes.
	maxTitleChars = 200
	// titleReadBytes bounds what is read of the title field: more than 200 characters
	// in any script, so a longer title is still seen as too long, not cut.
	titleReadBytes = 4 << 10
	// maxFilenameChars bounds the file name kept with the task.
	maxFilenameChars = 255
	// formSlack is how far the whole request body may go past MAX_UPLOAD_MB: room for
	// the other fields and the part headers, and no more.
	formSlack = 1 << 20
	// untitled names a task whose form gave neither a title nor a file name: stored as
	// its title, so in the one language stored texts are written in.
	untitled = "Untitled upload"
)

// formError is a problem with the form rather than with the file's content, with the
// status it is answered with and the field it is about (the API names it).
type formError struct {
	status int
	msg    locale.Text
	field  string
}

func (e *formError) Error() string { return "web: form refused " + e.msg.String() }

var (
	errNoFile       = &formError{http.StatusUnprocessableEntity, locale.Msg("upload_refused.no_file"), fieldFile}
	errNotMultipart = &formError{http.StatusUnprocessableEntity, locale.Msg("upload_refused.not_multipart"), fieldFile}
)

// errTooLarge is the refusal of a file over MAX_UPLOAD_MB.
func errTooLarge(mb int) *formError {
	return &formError{http.StatusRequestEntityTooLarge, locale.Msg("upload_refused.too_large", "MB", mb), fieldFile}
}

// readError is a failure to read the request (the browser went away, the body was cut
// short), kept apart from problems with the file so it is never blamed on the file.
type readError struct{ err error }

func (e *readError) Error() string { return "web: read upload: " + e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// uploadForm is the upload form as read so far.
type uploadForm struct {
	mr         *multipart.Reader
	title      string // as typed, trimmed; its first titleReadBytes at most
	titleRunes int    // the title's length, for the error that says it (see field)
	agent      string // the agent's name as typed, trimmed; "" to let Checkup choose
	agentRunes int
	language   string // as sent; the owner's language when the form has none
	filename   string // the file's base name as the browser sent it
}

// nextFile reads the fields before the file and returns the file part; errNoFile when
// the form has none.
func (f *uploadForm) nextFile() (*multipart.Part, error) {
	for {
		part, err := f.mr.NextPart()
		switch {
		case errors.Is(err, io.EOF):
			return nil, errNoFile
		case err != nil:
			return nil, &readError{err}
		case part.FormName() == fieldFile:
			f.filename = truncate(part.FileName(), maxFilenameChars)
			return part, nil
		}
		if err := f.field(part); err != nil {
			return nil, err
		}
	}
}

// rest reads the fields after the file: a title there counts as much as one before it.
func (f *uploadForm) rest() error {
	for {
		part, err := f.mr.NextPart()
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return &readError{err}
		}
		if err := f.field(part); err != nil {
			return err
		}
	}
}

// field reads a part that is not the first file: the title and the agent's name are
// kept, the rest skipped.
func (f *uploadForm) field(part *multipart.Part) (err error) {
	defer part.Close()
	switch part.FormName() {
	case fieldTitle:
		f.title, f.titleRunes, err = readText(part)
	case fieldAgent:
		f.agent, f.agentRunes, err = readText(part)
	case fieldLanguage:
		f.language, _, err = readText(part)
	}
	return err
}

// readText reads a text field, trimmed, with its length in characters; of a field
// longer than titleReadBytes it keeps the start and counts the whole.
func readText(part *multipart.Part) (string, int, error) {
	b, err := io.ReadAll(io.LimitReader(part, titleReadBytes))
	if err != nil {
		return "", 0, &readError{err}
	}
	if len(b) < titleReadBytes {
		text := strings.TrimSpace(string(b))
		return text, utf8.RuneCountInString(text), nil
	}
	// Longer than is read: the error gives the length of the field as sent, spaces
	// around it included (far over the limit either way); keep whole characters only.
	length := runeCounter(0)
	_, _ = length.Write(b)
	if _, err := io.Copy(&length, part); err != nil {
		return "", 0, &readError{err}
	}
	for i := len(b) - 1; i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				b = b[:i]
			}
			break
		}
	}
	return strings.TrimSpace(strings.ToValidUTF8(string(b), "\uFFFD")), int(length), nil
}

// runeCounter counts the characters of UTF-8 written to it, by the bytes that start
// one, so a character split between two writes counts once.
type runeCounter int

func (c *runeCounter) Write(p []byte) (int, error) {
	for _, b := range p {
		if b&0xC0 != 0x80 {
			*c++
		}
	}
	return len(p), nil
}

// checkTitle refuses a title, or an agent's name, longer than the tables take, a
// title, agent's name or file name that is not text a name may hold (textProblem), and
// a language Checkup does not write.
func (f *uploadForm) checkTitle() error {
	if n := f.titleRunes; n > maxTitleChars {
		return &formError{http.StatusUnprocessableEntity, locale.Msg("upload_refused.title_long", "N", n, "Max", maxTitleChars), fieldTitle}
	}
	if n := f.agentRunes; n > maxAgentChars {
		return &formError{http.StatusUnprocessableEntity, locale.Msg("upload_refused.agent_long", "N", n, "Max", maxAgentChars), fieldAgent}
	}
	if msg := textProblem(fieldTitle, f.title, true); !msg.IsZero() {
		return &formError{http.StatusUnprocessableEntity, msg, fieldTitle}
	}
	if msg := textProblem(fieldAgent, f.agent, true); !msg.IsZero() {
		return &formError{http.StatusUnprocessableEntity, msg, fieldAgent}
	}
	if msg := textProblem(fieldFileName, f.filename, true); !msg.IsZero() {
		return &formError{http.StatusUnprocessableEntity, msg, fieldFile}
	}
	if !slices.Contains(locale.Codes(), f.language) {
		return &formError{http.StatusUnprocessableEntity, locale.Msg("upload_refused.language", "Value", strconv.Quote(truncate(f.language, 40))), fieldLanguage}
	}
	return nil
}

// taskTitle is the title the task gets: the one typed, else the file's name.
func (f *uploadForm) taskTitle() string {
	return cmp.Or(f.title, truncate(f.filename, maxTitleChars), untitled)
}

// drain reads what is left of a refused form, so the browser, which sends the whole
// body before it reads the answer, gets to see it; a title after the file is kept on
// the way. Errors are ignored: the answer is the refusal either way.
func (f *uploadForm) drain() {
	_ = f.rest()
}

// truncate cuts s to at most n characters.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// uploadReader counts the file's bytes as they stream by and refuses the file once it
// passes MAX_UPLOAD_MB.
type uploadReader struct {
	r   io.Reader
	n   int64
	max int64
	mb  int
}

func (u *uploadReader) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	u.n += int64(n)
	switch {
	case u.n > u.max:
		return n, errTooLarge(u.mb)
	case err != nil && !errors.Is(err, io.EOF):
		return n, &readError{err}
	}
	return n, err
}
