package web

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"os"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/views/components"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/agent"
)

// taskCreate is POST /tasks: it reads the uploaded file to a temporary file, creates
// the task from it and answers 303 to it. A refused file is answered with the form
// again, the title kept and the reasons next to it, and nothing stored.
func (s *Server) taskCreate(c echo.Context) error {
	up, err := s.upload(c)
	if err != nil {
		status, failure := s.refusal(c, up.form, err)
		if status == 0 {
			return err
		}
		return s.renderUpload(c, status, up.form.title, up.form.agent, up.form.language, failure)
	}
	sum := up.summary
	msg := []locale.Text{locale.Msg("uploaded.started", "Count", sum.Conversations, "Format", formatLabel(sum))}
	if lb := sum.Labels; lb.Field != "" {
		msg = append(msg, locale.Msg("uploaded.labels", "Field", lb.Field, "Failed", lb.Failed, "Succeeded", lb.Succeeded, "Unlabelled", lb.Unlabelled))
	}
	if n := len(sum.Warnings) + sum.MoreWarnings; n > 0 {
		msg = append(msg, locale.Msg("uploaded.changes", "Count", n))
	}
	// The task is stored by now: a failed look for an earlier upload only loses the hint.
	earlier, again, err := s.store.EarlierUpload(c.Request().Context(), up.id, auth.OwnerFrom(c))
	if err != nil {
		s.logger(c).Warn("upload: could not look for an earlier upload of the same file", "task_id", up.id, "err", err)
	}
	l := s.localizerOf(c)
	if again {
		msg = append(msg, locale.Msg("uploaded.again", "Time", l.Time(earlier)))
	}
	s.flash.Set(c, l.Text(locale.Sentences(msg...)))
	return seeOther(c, string(components.TaskURL(up.id.String())))
}

// uploaded is a task created from an upload, and the form it came in.
type uploaded struct {
	id      uuid.UUID
	summary ingest.Summary
	form    *uploadForm // never nil, also when the upload is refused
}

// upload reads a multipart upload (fields title and file) to a temporary file, then
// creates a new task of the request's owner from it: the one path of POST /tasks and
// POST /api/v1/tasks alike, with the same limits. On error the form says what was
// read of it, and refusal tells the person why.
func (s *Server) upload(c echo.Context) (uploaded, error) {
	owner := auth.OwnerFrom(c)
	release, ok := s.uploads.take(owner)
	if !ok {
		// The body is left unread: reading it would hold this request as long as the
		// client takes, which is what the limit is for.
		return uploaded{form: &uploadForm{}}, errTooManyUploads
	}
	defer release()
	r := c.Request()
	body := http.MaxBytesReader(c.Response(), r.Body, s.deps.Config.MaxUploadBytes()+formSlack)
	// The multipart reader asks for 4 KiB at a time; reading the socket in larger
	// chunks beneath it saves most of the system calls of a large upload.
	r.Body = readCloser{bufio.NewReaderSize(body, uploadReadBuffer), body}
	mr, err := r.MultipartReader()
	if err != nil {
		return uploaded{form: &uploadForm{}}, errNotMultipart
	}
	form := &uploadForm{mr: mr, language: s.localizerOf(c).Code()}
	file, err := s.receiveUpload(form)
	if err != nil {
		return uploaded{form: form}, err
	}
	defer file.Close()
	// After the file is read, so that a browser is sure to read the answer, and before
	// the file is parsed and copied in, which the answer would throw away.
	if err := s.roomForATask(r.Context(), owner); err != nil {
		return uploaded{form: form}, err
	}
	turn, err := s.bulkTurns.wait(r.Context(), owner)
	if err != nil {
		return uploaded{form: form}, err
	}
	defer turn()
	var token *int64
	if id, ok := auth.TokenIDFrom(c); ok {
		token = &id
	}
	id, sum, err := s.createFromUpload(r.Context(), form, file, owner, token)
	return uploaded{id: id, summary: sum, form: form}, err
}

// uploadReadBuffer is how much of the request body is read from the socket at once.
const uploadReadBuffer = 64 << 10

// readCloser reads through a buffer and closes the body beneath it.
type readCloser struct {
	io.Reader
	io.Closer
}

// receiveUpload reads the whole form: the fields before the file, the file into a
// spool, and the fields after it. No database connection is held meanwhile, however
// slowly the client sends.
func (s *Server) receiveUpload(form *uploadForm) (*spool, error) {
	part, err := form.nextFile()
	if err != nil {
		return nil, err
	}
	if err := form.checkTitle(); err != nil {
		return nil, err
	}
	file, err := newSpool(&s.spoolDisk)
	if err != nil {
		return nil, err
	}
	if err := file.fill(&uploadReader{r: part, max: s.deps.Config.MaxUploadBytes(), mb: s.deps.Config.MaxUploadMB}); err != nil {
		file.Close()
		return nil, err
	}
	if file.size == 0 && form.filename == "" {
		file.Close()
		return nil, errNoFile // a browser sends an empty, unnamed part when no file was chosen
	}
	if err := form.rest(); err != nil {
		file.Close()
		return nil, err
	}
	if err := form.checkTitle(); err != nil {
		file.Close()
		return nil, err
	}
	return file, nil
}

// createFromUpload creates the task from the received file in one transaction on the
// bulk pool: the file through ingest into the new task's COPY, then, when enough of its
// conversations pass the quality checks, the task is published to the workers, if the
// API token it came with (token, nil for a page's) is still there. Any error, or a
// panic, rolls everything back.
func (s *Server) createFromUpload(ctx context.Context, form *uploadForm, file *spool, owner store.Owner, token *int64) (uuid.UUID, ingest.Summary, error) {
	task, err := s.bulk.BeginTask(ctx, owner, store.NewTask{Title: form.taskTitle(), SourceFilename: form.filename, SourceBytes: file.size,
		Unfinished: s.deps.Config.MaxUnfinishedTasks, Token: token, Language: form.language})
	if err != nil {
		return uuid.Nil, ingest.Summary{}, err
	}
	defer task.Rollback()
	pop := newPopulation(s.deps.Config.MinConversations)
	prompt, prompted := "", false // the first conversation's system prompt: the agent's policy
	sum, err := ingest.Parse(bufio.NewReaderSize(file, uploadReadBuffer), s.uploadLimits(), func(c transcript.Conversation) error {
		pop.add(c)
		if !prompted {
			prompt, prompted = c.SystemPrompt(), true
		}
		return task.Add(store.ConversationOf(c))
	})
	if err != nil {
		return uuid.Nil, sum, err
	}
	if err := pop.check(); err != nil {
		return uuid.Nil, sum, err
	}
	warnUpload(s.deps.Locales.English(), task, sum)
	name, err := s.chooseAgent(ctx, owner, form, prompt)
	if err != nil {
		return uuid.Nil, sum, err
	}
	err = task.Publish(ctx, store.UploadEnd{Format: sourceFormat(sum), LabelField: sum.Labels.Field, Agent: name, SystemPrompt: prompt})
	if errors.Is(err, store.ErrTooManyUnfinished) {
		err = s.tooManyUnfinished(uploadAgain) // another upload or re-run took the last place meanwhile
	}
	return task.ID(), sum, err
}

// refusal is the status and the reasons of a refused upload; status 0 means the error
// is not the person's (the database) and goes on to the error handler. What is left of
// the form is read first, so a client that sends the whole body before it reads the
// answer gets to see it.
func (s *Server) refusal(c echo.Context, form *uploadForm, err error) (int, *refused) {
	status, failure := uploadFailure(err)
	if status == 0 {
		return 0, nil
	}
	if status != http.StatusRequestEntityTooLarge && status != http.StatusRequestTimeout && form.mr != nil {
		form.drain()
	}
	// A failed read of the body cancels the request's context (net/http), yet the
	// client may still be there to read why.
	r := c.Request()
	c.SetRequest(r.WithContext(context.WithoutCancel(r.Context())))
	return status, failure
}

// refused is why an upload was refused: its problems at known places, how many more
// there were, and a sentence about the file or the form as a whole.
type refused struct {
	problems []locale.Text
	more     int
	reason   locale.Text
	field    string // the form field at fault, as pages.UploadFailure names it
}

// page is the refusal as the upload page shows it, written by l.
func (r *refused) page(l *locale.Localizer) *pages.UploadFailure {
	if r == nil {
		return nil
	}
	f := &pages.UploadFailure{More: r.more, Reason: l.Text(r.reason), Field: r.field}
	for _, p := range r.problems {
		f.Problems = append(f.Problems, l.Text(p))
	}
	return f
}

// uploadFailure maps an upload's error to its status and what the page says; status 0
// means the error is not about the upload.
func uploadFailure(err error) (int, *refused) {
	var (
		located  *ingest.Error
		file     *ingest.FileError
		form     *formError
		tooLarge *http.MaxBytesError
		read     *readError
		tooFew   *tooFewError
	)
	switch {
	case errors.As(err, &tooFew):
		return tooFew.failure()
	case errors.As(err, &form):
		return form.status, &refused{reason: form.msg, field: form.field}
	case errors.As(err, &tooLarge):
		// The whole request passed the limit before the file part did: the fields around
		// the file were too large, which only a hand-made request does.
		return http.StatusRequestEntityTooLarge, &refused{reason: locale.Msg("upload_refused.request_too_large")}
	case errors.As(err, &located):
		f := &refused{problems: located.Problems, more: located.More}
		if located.Stopped != nil {
			f.reason = located.Stopped.Msg
		}
		return http.StatusUnprocessableEntity, f
	case errors.As(err, &file):
		return http.StatusUnprocessableEntity, &refused{reason: file.Msg}
	case errors.As(err, &read) && errors.Is(err, os.ErrDeadlineExceeded):
		return http.StatusRequestTimeout, &refused{reason: locale.Msg("upload_refused.too_slow")}
	case errors.As(err, &read):
		return http.StatusBadRequest, &refused{reason: locale.Msg("upload_refused.cut_short")}
	}
	return 0, nil
}

// sourceFormat is what the task records as its source format: ingest's name for it,
// with "+gzip" when the file was compressed (source_bytes is then the compressed size).
func sourceFormat(sum ingest.Summary) string {
	if sum.Gzip {
		return sum.Format + "+gzip"
	}
	return sum.Format
}

// formatLabel names the format read, for people.
func formatLabel(sum ingest.Summary) locale.Text {
	label := locale.Lit(transcript.FormatLabel(sum.Format))
	if sum.Gzip {
		return locale.Msg("uploaded.gzipped", "Format", label)
	}
	return label
}

// warnUpload records ingest's warnings ("line 17: duplicate conversation id ...") as
// the task's, the location as their scope, and counts the ones not listed; en writes
// them in the canonical language stored texts are in, beside their messages.
func warnUpload(en *locale.Localizer, task *store.TaskUpload, sum ingest.Summary) {
	for _, w := range sum.Warnings {
		task.Warn(en, w.Where, w.What)
	}
	if sum.MoreWarnings > 0 {
		task.Warn(en, locale.Text{}, locale.Msg("uploaded.more_changes", "Count", sum.MoreWarnings))
	}
}

// chooseAgent names the agent of an upload: the one the form names, else the owner's
// agent whose system prompt this upload's shares most of its words with (agent.Choose),
// else one named after the task's title.
func (s *Server) chooseAgent(ctx context.Context, owner store.Owner, form *uploadForm, prompt string) (string, error) {
	if form.agent != "" {
		return form.agent, nil
	}
	agents, err := s.store.AgentPrompts(ctx, owner)
	if err != nil {
		return "", err
	}
	known := make([]agent.Known, len(agents))
	for i, a := range agents {
		known[i] = agent.Known{Name: a.Name, SystemPrompt: a.SystemPrompt}
	}
	return agent.Choose("", prompt, form.taskTitle(), known), nil
}
