package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
)

// apiMaxPage is the longest page of GET /api/v1/tasks.
const apiMaxPage = 100

// apiTaskPage is a page of the owner's tasks, newest first; next_cursor continues it
// (the same link is in the Link header, rel="next"), null on the last page.
type apiTaskPage struct {
	Tasks      []apiTaskSummary `json:"tasks"`
	NextCursor *string          `json:"next_cursor"`
	Next       *string          `json:"next"`
}

// apiTaskList is GET /api/v1/tasks?limit=&before=: the owner's tasks newest first,
// keyset-paginated like the page's list.
func (s *Server) apiTaskList(c echo.Context) error {
	limit := tasksPerPage
	if raw := c.QueryParam("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > apiMaxPage {
			return &inputError{status: http.StatusBadRequest, field: "limit",
				msg: locale.Msg("api_refused.limit", "Max", strconv.Itoa(apiMaxPage))}
		}
		limit = n
	}
	var after *store.TaskCursor
	if raw := c.QueryParam("before"); raw != "" {
		cur, err := store.ParseTaskCursor(raw)
		if err != nil {
			return &inputError{status: http.StatusBadRequest, field: "before",
				msg: locale.Msg("api_refused.before")}
		}
		after = &cur
	}
	page, err := s.store.ListTasks(c.Request().Context(), auth.OwnerFrom(c), after, limit)
	if err != nil {
		return err
	}
	out := apiTaskPage{Tasks: make([]apiTaskSummary, len(page.Tasks))}
	for i, t := range page.Tasks {
		out.Tasks[i] = s.apiSummaryOf(t)
	}
	if page.Next != nil {
		cursor := page.Next.String()
		next := s.deps.Config.BaseURL + apiPrefix + "/tasks?" + url.Values{"before": {cursor}, "limit": {strconv.Itoa(limit)}}.Encode()
		out.NextCursor, out.Next = &cursor, &next
		c.Response().Header().Set("Link", "<"+next+`>; rel="next"`)
	}
	return c.JSON(http.StatusOK, out)
}
