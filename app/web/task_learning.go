package web

import (
	"net/http"

	"github.com/a-h/templ"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/htmx"
	"github.com/checkup-dev/checkup/views/layout"
	"github.com/checkup-dev/checkup/views/pages"
)

// agentLearning reports whether the detector of task id's agent is learning from
// labels now, which the page of a finished diagnosis says.
func (s *Server) agentLearning(c echo.Context, id uuid.UUID) (bool, error) {
	ctx, owner := c.Request().Context(), auth.OwnerFrom(c)
	t, err := s.store.Task(ctx, id, owner)
	if err != nil || t.AgentID == nil || !t.Status.Terminal() {
		return false, err
	}
	a, err := s.store.AgentState(ctx, *t.AgentID, owner)
	if err != nil {
		return false, err
	}
	return a.Learning, nil
}

// taskLearning is GET /tasks/{id}/learning, the task page's poll while its agent's
// detector learns: the notice again while it does (two reads), and once it is done the
// whole page body as it is now, retargeted over the old one, without the poll.
func (s *Server) taskLearning(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	ctx, owner := c.Request().Context(), auth.OwnerFrom(c)
	task, err := s.store.Task(ctx, id, owner)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	if task.AgentID != nil {
		a, err := s.store.AgentState(ctx, *task.AgentID, owner)
		if err != nil {
			return err
		}
		if a.Learning {
			return render(c, http.StatusOK, pages.LearningNotice(id.String(), a.Name))
		}
	}
	v, err := s.taskPage(c, id)
	if err != nil {
		return err
	}
	c.Response().Header().Set(htmx.HeaderRetarget, "#task-page")
	c.Response().Header().Set(htmx.HeaderReswap, "outerHTML")
	return render(c, http.StatusOK, templ.Join(pages.TaskBody(v), layout.FlashCleared()))
}
