package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/web/flash"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/views/components"
)

// taskCancel stops a task: a pending one at once, a running one after the step in
// progress. It answers 303 back to the task page with a sentence saying which.
func (s *Server) taskCancel(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	status, err := s.store.CancelTask(c.Request().Context(), id, auth.OwnerFrom(c))
	if err != nil {
		return err
	}
	switch status {
	case taskstate.Canceled:
		flash.Set(c, "The diagnosis is canceled.")
	case taskstate.Running:
		flash.Set(c, "Cancel requested: the diagnosis stops after the step in progress.")
	default:
		flash.Set(c, "This diagnosis had already finished, so there was nothing to cancel.")
	}
	return c.Redirect(http.StatusSeeOther, string(components.TaskURL(id.String())))
}
