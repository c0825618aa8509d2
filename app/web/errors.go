package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"
)

// handleError is the one place errors become responses: people get a sentence, the
// log gets the error.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	code := http.StatusInternalServerError
	msg := "Something went wrong on our side. Try again; if it keeps happening, tell whoever runs Checkup."
	var he *echo.HTTPError
	if errors.As(err, &he) {
		code = he.Code
		if m, ok := he.Message.(string); ok && code < 500 {
			msg = m
		} else if code < 500 {
			msg = http.StatusText(code)
		}
	}
	if code >= 500 {
		logger(c).Error("request failed", "err", err, "status", code)
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(code)
		return
	}
	_ = c.String(code, msg)
}
