package web

import (
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/views/components"
	"github.com/checkup-dev/checkup/views/pages"
)

// tasksPerPage is the length of a page of the task list.
const tasksPerPage = 25

// taskList shows the owner's tasks newest first, a page at a time (?before=<cursor>
// continues after the last task of the previous page), each finished one with its top
// issue and that issue's trend over the runs of its title.
func (s *Server) taskList(c echo.Context) error {
	var after *store.TaskCursor
	if raw := c.QueryParam("before"); raw != "" {
		cur, err := store.ParseTaskCursor(raw)
		if err != nil {
			return echo.NewHTTPError(http.StatusBadRequest, locale.Msg("errors.broken_page_link"))
		}
		after = &cur
	}
	page, err := s.store.ListTasks(c.Request().Context(), auth.OwnerFrom(c), after, tasksPerPage)
	if err != nil {
		return err
	}
	v := pages.TaskListView{Paged: after != nil, Tasks: make([]pages.TaskRow, len(page.Tasks)), Now: time.Now()}
	for i, t := range page.Tasks {
		v.Tasks[i] = pages.TaskRow{
			Progress: components.Progress{TaskID: t.ID.String(), Status: t.Status, Stage: t.Stage,
				Done: int(t.ProgressDone), Total: int(t.ProgressTotal), Attempt: int(t.Attempt), LostCount: int(t.LostCount)},
			Title: t.Title, Conversations: int(t.ConversationCount), Isolated: int(t.Isolated),
			CreatedAt: t.CreatedAt, FinishedAt: t.FinishedAt, SourceFilename: t.SourceFilename, Rerun: t.Rerun,
			Agent: t.AgentName,
		}
		if t.AgentID != nil {
			v.Tasks[i].AgentID = *t.AgentID
		}
	}
	ids := make([]uuid.UUID, len(page.Tasks))
	for i, t := range page.Tasks {
		ids[i] = t.ID
	}
	runs, err := s.store.TitleRuns(c.Request().Context(), ids, auth.OwnerFrom(c), trendRuns)
	if err != nil {
		return err
	}
	topIssues(s.localizerOf(c), v.Tasks, runs)
	if page.Next != nil {
		v.OlderURL = "/tasks?before=" + url.QueryEscape(page.Next.String())
	}
	return render(c, http.StatusOK, pages.TaskList(s.page(c, t(c, "tasks.title")), v))
}
