package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
)

// apiCreated is the answer to an upload: the new task, and what was read of the file.
type apiCreated struct {
	apiTask
	Upload apiUpload `json:"upload"`
}

// apiUpload is what the upload held, as the page's message says it.
type apiUpload struct {
	Format        string         `json:"format"`
	Gzip          bool           `json:"gzip"`
	Conversations int            `json:"conversations"`
	Warnings      int            `json:"warnings"`
	Labels        apiLabelCounts `json:"labels"`
}

// apiLabelCounts are the outcome labels the upload carried, and the field they came
// from (empty without labels).
type apiLabelCounts struct {
	Field      string `json:"field"`
	Failed     int    `json:"failed"`
	Succeeded  int    `json:"succeeded"`
	Unlabelled int    `json:"unlabelled"`
}

// errTokenRevoked refuses an upload whose token was revoked while it was read.
var errTokenRevoked = echo.NewHTTPError(http.StatusUnauthorized, locale.Msg("upload_refused.token_revoked"))

// apiTaskCreate is POST /api/v1/tasks (multipart: file, and an optional title): the
// upload path of the page, answered 201 with the task and its URL in Location. A
// refused file is a 4xx naming the field and the problems by line, and stores nothing.
func (s *Server) apiTaskCreate(c echo.Context) error {
	up, err := s.upload(c)
	if errors.Is(err, store.ErrTokenRevoked) {
		return errTokenRevoked
	}
	if err != nil {
		status, failure := s.refusal(c, up.form, err)
		if status == 0 {
			return err
		}
		in := &inputError{status: status, field: fieldFile, msg: failure.reason, problems: failure.problems, more: failure.more}
		if fe := (*formError)(nil); errors.As(err, &fe) && fe.field != "" {
			in.field = fe.field
		}
		if in.msg.IsZero() {
			in.msg = locale.Msg("upload_refused.by_line")
		}
		return in
	}
	t, err := s.store.TaskState(c.Request().Context(), up.id, auth.OwnerFrom(c))
	if err != nil {
		return err
	}
	out := apiCreated{apiTask: s.apiTaskOf(t), Upload: apiUploadOf(up.summary)}
	c.Response().Header().Set(echo.HeaderLocation, out.URL)
	return c.JSON(http.StatusCreated, out)
}

func apiUploadOf(sum ingest.Summary) apiUpload {
	l := sum.Labels
	return apiUpload{
		Format: sum.Format, Gzip: sum.Gzip, Conversations: sum.Conversations, Warnings: len(sum.Warnings) + sum.MoreWarnings,
		Labels: apiLabelCounts{Field: l.Field, Failed: l.Failed, Succeeded: l.Succeeded, Unlabelled: l.Unlabelled},
	}
}
