package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/views/components"
	"github.com/checkup-dev/checkup/views/pages"
)

// taskCancel stops a task: a pending one at once, a running one after the step in
// progress, and sends the browser back to the task page with a sentence saying which.
// Like delete it asks first: htmx in a dialog before it sends the request, the plain
// form (without confirm=yes) on a page of its own.
func (s *Server) taskCancel(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	owner := auth.OwnerFrom(c)
	if c.FormValue("confirm") != "yes" && !isFragment(c) {
		t, err := s.store.Task(c.Request().Context(), id, owner)
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, pages.TaskCancelConfirm(s.page(c, "Cancel "+t.Title), id.String(), t.Title))
	}
	status, err := s.store.CancelTask(c.Request().Context(), id, owner)
	if err != nil {
		return err
	}
	switch status {
	case taskstate.Canceled:
		s.flash.Set(c, "The diagnosis is canceled.")
	case taskstate.Running:
		s.flash.Set(c, "Cancel requested: the diagnosis stops after the step in progress.")
	default:
		s.flash.Set(c, "This diagnosis had already finished, so there was nothing to cancel.")
	}
	return seeOther(c, string(components.TaskURL(id.String())))
}
