package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/views/components"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/review"
)

// clusterExpectedMark is POST /tasks/{id}/clusters/{cluster}/expected: the owner says
// the cluster is expected behaviour, with a reason (optional but for a RISK issue). The cluster joins the
// expected behaviour, its Action leaves the ranking and the others are ranked again;
// a rule marks the same issue in the owner's later runs.
func (s *Server) clusterExpectedMark(c echo.Context) error {
	return s.reviewCluster(c, func(idx int32) review.Change { return review.MarkExpected(idx, reasonOf(c)) },
		pages.ReviewNotice{Marked: true}, "expected")
}

// clusterExpectedUndo takes the owner's mark back (DELETE from htmx, POST
// .../expected/delete from the plain form): the cluster is an issue again, its Action
// (when one was written) is ranked again, and the rules that mark it in later runs
// are removed. From an issue the owner has not marked it is refused, so the answer
// never claims a change that did not happen.
func (s *Server) clusterExpectedUndo(c echo.Context) error {
	return s.reviewCluster(c, review.UndoExpected, pages.ReviewNotice{}, "clusters")
}

// clusterNotExpectedMark is POST /tasks/{id}/clusters/{cluster}/not-expected: the owner
// says a cluster the agent's policy seemed to call for is not expected — the policy
// sentence it was matched to does not fit, or the agent should not do it — with an
// optional reason. It becomes an issue, without an Action in the run it was expected
// in (none was written for it); a rule says the same of the issue in the owner's later
// runs, where it can get one. Saying it again only changes the reason.
func (s *Server) clusterNotExpectedMark(c echo.Context) error {
	return s.reviewCluster(c, func(idx int32) review.Change { return review.MarkNotExpected(idx, reasonOf(c)) },
		pages.ReviewNotice{Policy: true}, "clusters")
}

// clusterNotExpectedUndo takes back the owner's word that a cluster is not expected
// (DELETE from htmx, POST .../not-expected/delete from the plain form): it is expected
// by the agent's policy again, out of the ranking, and the rules that said otherwise in
// later runs are removed. From an issue the owner has not said that of it is refused,
// so the answer never claims a change that did not happen.
func (s *Server) clusterNotExpectedUndo(c echo.Context) error {
	return s.reviewCluster(c, review.UndoNotExpected, pages.ReviewNotice{Marked: true, Policy: true}, "expected")
}

// reviewCluster makes one review of the route's cluster (change, given its index) and
// answers with notice (which cluster and whether the Actions were ranked again are
// filled in), back at the task page's anchor for a plain form.
func (s *Server) reviewCluster(c echo.Context, change func(idx int32) review.Change, notice pages.ReviewNotice, anchor string) error {
	id, idx, err := s.clusterRoute(c)
	if err != nil {
		return err
	}
	reranked, err := s.review(c, id, idx, change(idx))
	if err != nil {
		return err
	}
	notice.ClusterIdx, notice.Reranked = int(idx), reranked
	return s.reviewed(c, id, notice, anchor)
}

// reasonOf is the reason a mark's form gives, trimmed.
func reasonOf(c echo.Context) string { return strings.TrimSpace(c.FormValue("reason")) }

// review applies change to the owner's task (review.Apply) and answers what it refused:
// a refusal of the state is a 409, of the request a 400, with its sentence; a
// cluster the task does not have is a 404.
func (s *Server) review(c echo.Context, id uuid.UUID, idx int32, change review.Change) (reranked bool, err error) {
	reranked, err = review.Apply(c.Request().Context(), s.store, id, auth.OwnerFrom(c), change)
	var refused *review.Refused
	switch {
	case errors.As(err, &refused) && refused.Invalid:
		return false, echo.NewHTTPError(http.StatusBadRequest, refused.Sentence)
	case errors.As(err, &refused):
		return false, echo.NewHTTPError(http.StatusConflict, refused.Sentence)
	case errors.Is(err, review.ErrNoCluster):
		return false, noCluster(idx)
	}
	return reranked, err
}

// reviewed answers a review of a cluster (n says which and what changed): htmx gets
// the task page's body to swap in, with the clusters and Actions as they are now and a
// line that confirms the change; the plain form a 303 back to the page's section
// anchor, with the same line. For an issue now without an Action, the line says why
// (report.NoActionWords).
func (s *Server) reviewed(c echo.Context, id uuid.UUID, n pages.ReviewNotice, anchor string) error {
	v, err := s.taskPage(c, id)
	if err != nil {
		return err
	}
	r := v.Report
	var notice *pages.ReviewNotice
	for _, cl := range r.Clusters {
		if cl.Idx == n.ClusterIdx {
			// Only a mark that took a ranked Action out frees a place for the next issue.
			n.Title, n.NextInLine = cl.TitleIn(s.localizerOf(c)), n.Marked && n.Reranked && pages.Waiting(r) > 0
			if !n.Marked {
				n.NoAction = pages.NoActionHint(s.localizerOf(c), cl)
			}
			notice = &n
		}
	}
	if notice == nil {
		return noCluster(int32(n.ClusterIdx)) // the task's clusters were written again meanwhile
	}
	if !isFragment(c) {
		return s.backToTask(c, id, notice.Sentence(s.localizerOf(c)), anchor)
	}
	v.Reviewed = notice
	return render(c, http.StatusOK, pages.TaskBody(v))
}

// backToTask sends the plain form back to the task page's section anchor, with message
// shown there once.
func (s *Server) backToTask(c echo.Context, id uuid.UUID, message, anchor string) error {
	s.flash.Set(c, message)
	return c.Redirect(http.StatusSeeOther, string(components.TaskURL(id.String()))+"#"+anchor)
}

// clusterRoute reads the :id and :cluster of a cluster route.
func (s *Server) clusterRoute(c echo.Context) (uuid.UUID, int32, error) {
	id, err := taskID(c)
	if err != nil {
		return uuid.Nil, 0, err
	}
	idx, err := strconv.ParseInt(c.Param("cluster"), 10, 32)
	if err != nil || idx < 0 {
		// Another owner's task must look the same whatever the cluster: check the task.
		if _, terr := s.store.Task(c.Request().Context(), id, auth.OwnerFrom(c)); terr != nil {
			return uuid.Nil, 0, terr
		}
		return uuid.Nil, 0, noCluster(-1)
	}
	return id, int32(idx), nil
}

func noCluster(idx int32) error {
	if idx < 0 {
		return echo.NewHTTPError(http.StatusNotFound, locale.Msg("errors.no_such_issue"))
	}
	return echo.NewHTTPError(http.StatusNotFound, locale.Msg("errors.no_issue", "N", strconv.Itoa(int(idx))))
}
