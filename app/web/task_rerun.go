package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/web/flash"
	"github.com/checkup-dev/checkup/views/components"
)

// taskRerun starts a new diagnosis of the same conversations and answers 303 to it.
// The old task and its report stay as they are.
func (s *Server) taskRerun(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	rerun, err := s.store.RerunTask(c.Request().Context(), id, auth.OwnerFrom(c))
	if err != nil {
		return err
	}
	flash.Set(c, "A new diagnosis of the same "+components.Plural(rerun.Conversations, "conversation", "conversations")+" has started.")
	return c.Redirect(http.StatusSeeOther, string(components.TaskURL(rerun.ID.String())))
}
