package web

import (
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/report"
)

// errNoTask is the answer for a task that does not exist and for another user's task
// alike, so a guessed id tells nothing.
var errNoTask = echo.NewHTTPError(http.StatusNotFound, locale.Msg("errors.no_task"))

// taskID reads the :id of a task route; an id that is not a UUID cannot name a task.
func taskID(c echo.Context) (uuid.UUID, error) {
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return uuid.Nil, errNoTask
	}
	return id, nil
}

// taskReport reads the signed-in owner's task and builds its report.
func (s *Server) taskReport(c echo.Context, id uuid.UUID, detail store.ReportDetail) (report.Report, error) {
	rows, err := s.store.TaskReport(c.Request().Context(), id, auth.OwnerFrom(c), detail)
	if err != nil {
		return report.Report{}, err
	}
	r, err := report.Build(rows, time.Now(), s.localizerOf(c))
	r.BaseURL = s.deps.Config.BaseURL
	return r, err
}
