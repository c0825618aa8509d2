package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
)

// apiTaskShow is GET /api/v1/tasks/{id}: the task's status, stage and progress, one
// primary-key read, for a script that polls until terminal is true.
func (s *Server) apiTaskShow(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	t, err := s.store.TaskState(c.Request().Context(), id, auth.OwnerFrom(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.apiTaskOf(t))
}
