package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/views/pages"
)

const deletedMessage = "delete.deleted"

// taskDelete is the plain form's delete. Without confirm=yes it shows a page that
// asks first (htmx asks in a dialog and sends DELETE instead); with it, it deletes and
// answers 303 to the task list.
func (s *Server) taskDelete(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	owner := auth.OwnerFrom(c)
	if c.FormValue("confirm") != "yes" {
		t, err := s.store.Task(c.Request().Context(), id, owner)
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, pages.TaskDeleteConfirm(s.page(c, s.localizerOf(c).T("delete.title", "Title", t.Title)), id.String(), t.Title))
	}
	if err := s.deleteTask(c.Request().Context(), id, owner); err != nil {
		return err
	}
	s.flash.Set(c, s.localizerOf(c).T(deletedMessage))
	return c.Redirect(http.StatusSeeOther, "/tasks")
}

// taskDeleteHTMX is DELETE /tasks/{id}, sent by htmx after its confirmation dialog:
// it deletes and sends the browser to the task list.
func (s *Server) taskDeleteHTMX(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	if err := s.deleteTask(c.Request().Context(), id, auth.OwnerFrom(c)); err != nil {
		return err
	}
	s.flash.Set(c, s.localizerOf(c).T(deletedMessage))
	return seeOther(c, "/tasks")
}
