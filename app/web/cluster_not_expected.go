package web

import (
	"context"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/cluster"
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
	reason := strings.TrimSpace(c.FormValue("reason"))
	reranked, err := s.review(c, id, func(ctx context.Context, rev *store.Review) error {
		cl, err := rev.Cluster(idx)
		if err != nil {
			return noCluster(idx)
		}
		switch {
		case cl.Expected && !policyExpected(cl):
			return errOwnerExpected
		case !cl.Expected && !cl.PolicyOverruled:
			return errNotPolicyExpected
		}
		if err := checkReason(reason); err != nil {
			return err
		}
		if err := noOppositeRule(ctx, rev, cl, false); err != nil {
			return err
		}
		return rev.MarkNotExpected(ctx, idx, store.ExpectedMark{Reason: reason, NormalTitle: cluster.NormalTitle(cl.Title)})
	})
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
	reranked, err := s.review(c, id, func(ctx context.Context, rev *store.Review) error {
		cl, err := rev.Cluster(idx)
		if err != nil {
			return noCluster(idx)
		}
		if !cl.PolicyOverruled {
			return errNotOverruled
		}
		return clearOwnersMark(ctx, rev, cl)
	})
	if err != nil {
		return err
	}
	return s.reviewed(c, id, pages.ReviewNotice{ClusterIdx: int(idx), Marked: true, Policy: true, Reranked: reranked}, "expected")
}

// policyExpected reports whether the agent's policy, not its owner, makes cl expected.
func policyExpected(cl dbsqlc.ListTaskClustersRow) bool {
	return cl.Expected && cl.ExpectedBy != nil && *cl.ExpectedBy == cluster.ExpectedByPolicy
}
