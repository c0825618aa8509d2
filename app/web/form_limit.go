package web

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/locale"
)

// maxFormBytes is the most a request other than an upload may send. The largest form,
// a reason of 500 characters for marking a cluster as expected, is a few KiB encoded.
const maxFormBytes = 64 << 10

var (
	errFormTooLarge = echo.NewHTTPError(http.StatusRequestEntityTooLarge, locale.Msg("errors.form_too_large"))
	errFormUnread   = echo.NewHTTPError(http.StatusBadRequest, locale.Msg("errors.form_unread"))
	errFormSlow     = echo.NewHTTPError(http.StatusRequestTimeout, locale.Msg("errors.form_slow"))
)

// formLimits reads the body of every request but an upload into memory, up to
// maxFormBytes, before anything parses it. Go's form parser would otherwise write any
// multipart body past 32 MB to temporary files, so a request to a form's address
// could fill the disk past MAX_UPLOAD_MB and the per-user upload limit. The uploads
// bound their own bodies as they stream them (MAX_UPLOAD_MB).
func formLimits() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 || isUpload(c) {
				return next(c)
			}
			if r.ContentLength > maxFormBytes {
				return errFormTooLarge
			}
			body, err := io.ReadAll(io.LimitReader(r.Body, maxFormBytes+1))
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return errFormSlow // bodyDeadlines' limits
			}
			if err != nil {
				return errFormUnread
			}
			if len(body) > maxFormBytes {
				return errFormTooLarge
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			return next(c)
		}
	}
}

// isUpload reports whether the request is one of the two uploads of conversations.
func isUpload(c echo.Context) bool {
	return c.Request().Method == http.MethodPost && (c.Path() == "/tasks" || c.Path() == apiPrefix+"/tasks")
}
