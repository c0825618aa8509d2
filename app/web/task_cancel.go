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
		return render(c, http.StatusOK, pages.TaskCancelConfirm(s.page(c, s.localizerOf(c).T("cancel.title", "Title", t.Title)), id.String(), t.Title))
	}
	status, err := s.store.CancelTask(c.Request().Context(), id, owner)
	if err != nil {
		return err
	}
	switch status {
	case taskstate.Canceled:
		s.flash.Set(c, s.localizerOf(c).T("cancel.canceled"))
	case taskstate.Running:
		s.flash.Set(c, s.localizerOf(c).T("progress.cancel_requested"))
	default:
		s.flash.Set(c, s.localizerOf(c).T("cancel.already_finished"))
	}
	return seeOther(c, string(components.TaskURL(id.String())))
}
