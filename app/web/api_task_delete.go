package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
)

// apiTaskDelete is DELETE /api/v1/tasks/{id}: the task and everything stored with it
// are deleted; 204, or 404 for a task that is not the token owner's.
func (s *Server) apiTaskDelete(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	if err := s.deleteTask(c.Request().Context(), id, auth.OwnerFrom(c)); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
