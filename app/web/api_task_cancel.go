package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
)

// apiTaskCancel is POST /api/v1/tasks/{id}/cancel: a pending task is canceled at once,
// a running one after the step in progress (its cancel_requested_at is set until it
// ends canceled); a finished task is left as it is. It answers with the task.
func (s *Server) apiTaskCancel(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	owner := auth.OwnerFrom(c)
	if _, err := s.store.CancelTask(c.Request().Context(), id, owner); err != nil {
		return err
	}
	t, err := s.store.TaskState(c.Request().Context(), id, owner)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.apiTaskOf(t))
}
