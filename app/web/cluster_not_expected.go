package web

import (
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/review"
)

// clusterNotExpectedMark is POST /tasks/{id}/clusters/{cluster}/not-expected: the owner
// says a cluster the agent's policy seemed to call for is not expected — the policy
// sentence it was matched to does not fit, or the agent should not do it — with an
// optional reason. It becomes an issue, without an Action in the run it was expected
// in (none was written for it); a rule says the same of the issue in the owner's later
// runs, where it can get one. Saying it again only changes the reason.
func (s *Server) clusterNotExpectedMark(c echo.Context) error {
	id, idx, err := s.clusterRoute(c)
	if err != nil {
		return err
	}
	reranked, err := s.review(c, id, idx, review.MarkNotExpected(idx, strings.TrimSpace(c.FormValue("reason"))))
	if err != nil {
		return err
	}
	return s.reviewed(c, id, pages.ReviewNotice{ClusterIdx: int(idx), Policy: true, Reranked: reranked}, "clusters")
}

// clusterNotExpectedUndo takes back the owner's word that a cluster is not expected
// (DELETE from htmx, POST .../not-expected/delete from the plain form): it is expected
// by the agent's policy again, out of the ranking, and the rules that said otherwise in
// later runs are removed. From an issue the owner has not said that of it is refused,
// so the answer never claims a change that did not happen.
func (s *Server) clusterNotExpectedUndo(c echo.Context) error {
	id, idx, err := s.clusterRoute(c)
	if err != nil {
		return err
	}
	reranked, err := s.review(c, id, idx, review.UndoNotExpected(idx))
	if err != nil {
		return err
	}
	return s.reviewed(c, id, pages.ReviewNotice{ClusterIdx: int(idx), Marked: true, Policy: true, Reranked: reranked}, "expected")
}
