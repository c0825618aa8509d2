package web

import (
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/htmx"
	"github.com/checkup-dev/checkup/views/components"
	"github.com/checkup-dev/checkup/views/layout"
	"github.com/checkup-dev/checkup/views/pages"
)

// taskProgress is the polling fragment: the task page's progress, or with ?view=row
// the status cell of the task list. While the task runs it costs one primary-key
// lookup, or none once this instance caches the task's progress (progress_cache.go).
// When the task page's poll finds the task finished, it answers with the whole
// finished page body, retargeted over the old one: the results appear without a
// reload, and the new body has no trigger, so polling stops. The flash above it (the
// upload's "the diagnosis has started") is cleared with it.
func (s *Server) taskProgress(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	row, err := s.progress(c.Request().Context(), id, auth.OwnerFrom(c))
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	p := components.Progress{
		TaskID: row.ID.String(), Status: row.Status, Stage: row.Stage, Done: int(row.ProgressDone),
		Total: int(row.ProgressTotal), Attempt: int(row.Attempt), LostCount: int(row.LostCount),
		Error: row.Error, CancelRequested: row.CancelRequestedAt != nil, ProviderDownSince: row.ProviderDownSince,
	}
	if c.QueryParam("view") == "row" {
		return render(c, http.StatusOK, components.TaskRowProgress(p))
	}
	if !p.Terminal() || !isFragment(c) {
		return render(c, http.StatusOK, components.TaskProgress(p))
	}
	v, err := s.taskPage(c, id)
	if err != nil {
		return err
	}
	c.Response().Header().Set(htmx.HeaderRetarget, "#task-page")
	c.Response().Header().Set(htmx.HeaderReswap, "outerHTML")
	body := pages.TaskBody(v)
	return render(c, http.StatusOK, templ.Join(body, layout.FlashCleared()))
}
