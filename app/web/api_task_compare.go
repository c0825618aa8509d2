package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/locale"
)

// apiTaskCompare is GET /api/v1/tasks/{id}/compare.json?baseline=: the page's
// compare.json (docs/compare-json.md), its refusals of the baseline named as the
// field they are about.
func (s *Server) apiTaskCompare(c echo.Context) error {
	err := s.taskCompareJSON(c)
	var he *echo.HTTPError
	if errors.As(err, &he) && he.Code == http.StatusBadRequest {
		msg, _ := he.Message.(locale.Text)
		return &inputError{status: he.Code, field: "baseline", msg: msg}
	}
	return err
}
