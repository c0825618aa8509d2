package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/views/components"
)

// rerunsPerUser is how many re-runs one user may have waiting or running at once: each
// copies every conversation of its task (up to 50,000), so clicks beyond it are
// refused until one has finished.
const rerunsPerUser = 2

// errTooManyReruns is the refusal of a re-run over rerunsPerUser.
var errTooManyReruns = echo.NewHTTPError(http.StatusTooManyRequests, locale.Msg("rerun.too_many", "N", rerunsPerUser))

// taskRerun starts a new diagnosis of the same conversations and answers 303 to it.
// The old task and its report stay as they are. The copy runs on the bulk pool.
func (s *Server) taskRerun(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	limits := store.Limits{Unfinished: s.deps.Config.MaxUnfinishedTasks, Reruns: rerunsPerUser}
	turn, err := s.bulkTurns.wait(c.Request().Context(), auth.OwnerFrom(c))
	if err != nil {
		return err
	}
	defer turn()
	rerun, err := s.bulk.RerunTask(c.Request().Context(), id, auth.OwnerFrom(c), limits)
	switch {
	case errors.Is(err, store.ErrTooManyReruns):
		return errTooManyReruns
	case errors.Is(err, store.ErrTooManyUnfinished):
		return echo.NewHTTPError(http.StatusTooManyRequests, s.tooManyUnfinished(rerunAgain).msg)
	}
	if err != nil {
		return err
	}
	s.flash.Set(c, t(c, "rerun.started", "Count", rerun.Conversations))
	return c.Redirect(http.StatusSeeOther, string(components.TaskURL(rerun.ID.String())))
}
