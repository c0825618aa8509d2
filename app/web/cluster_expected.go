package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/views/components"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/cluster"
)

// maxReasonRunes is the longest reason a mark of expected behaviour keeps.
const maxReasonRunes = 500

var (
	errNotFinished = echo.NewHTTPError(http.StatusConflict,
		"Issues can be marked as expected once the diagnosis has finished.")
	errPolicyExpected = echo.NewHTTPError(http.StatusConflict,
		"This issue is already expected by the agent's own policy (its system prompt).")
	errUndoPolicyExpected = echo.NewHTTPError(http.StatusConflict,
		"This issue is expected by the agent's own policy (its system prompt), not by a mark of yours: to make it an issue, mark it as not expected.")
	errOverruled = echo.NewHTTPError(http.StatusConflict,
		"You said this issue is not expected, though the agent's policy seemed to call for it: take that back to make it expected again.")
	errNotPolicyExpected = echo.NewHTTPError(http.StatusConflict,
		"Only an issue the agent's own policy seems to call for can be marked as not expected; this one is an issue already.")
	errOwnerExpected = echo.NewHTTPError(http.StatusConflict,
		"You marked this issue as expected yourself: take your mark back to make it an issue again.")
	errNotOverruled = echo.NewHTTPError(http.StatusConflict,
		"You have not said that this issue is not expected, so there is nothing to take back.")
	errNotMarked = echo.NewHTTPError(http.StatusConflict,
		"You have not marked this issue as expected, so there is nothing to take back.")
	errOppositeRule = echo.NewHTTPError(http.StatusConflict,
		"Your rule for this issue, made on a diagnosis before, says the opposite. Remove it on the Expected behavior page (in the menu at the top), then try again.")
	// errRiskNeedsReason: a risk marked expected leaves every later diagnosis's risks
	// too, so the mark says why, for whoever reads the rule later.
	errRiskNeedsReason = echo.NewHTTPError(http.StatusBadRequest,
		"A risk is marked as expected only with a reason: the mark hides it in your later diagnoses too. Say why it is expected, and mark it again.")
)

// clusterExpectedMark is POST /tasks/{id}/clusters/{cluster}/expected: the owner says
// the cluster is expected behaviour, with a reason (optional but for a RISK issue). The cluster joins the
// expected behaviour, its Action leaves the ranking and the others are ranked again;
// a rule marks the same issue in the owner's later runs.
func (s *Server) clusterExpectedMark(c echo.Context) error {
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
		case cl.PolicyOverruled:
			return errOverruled
		case cl.Expected && (cl.ExpectedBy == nil || *cl.ExpectedBy != cluster.ExpectedByOwner):
			return errPolicyExpected
		case reason == "" && cl.Type == string(analyzer.TypeRisk):
			return errRiskNeedsReason
		}
		if err := checkReason(reason); err != nil {
			return err
		}
		if err := noOppositeRule(ctx, rev, cl, true); err != nil {
			return err
		}
		return rev.MarkExpected(ctx, idx, store.ExpectedMark{Reason: reason, NormalTitle: cluster.NormalTitle(cl.Title)})
	})
	if err != nil {
		return err
	}
	return s.reviewed(c, id, pages.ReviewNotice{ClusterIdx: int(idx), Marked: true, Reranked: reranked}, "expected")
}

// clusterExpectedUndo takes the owner's mark back (DELETE from htmx, POST
// .../expected/delete from the plain form): the cluster is an issue again, its Action
// (when one was written) is ranked again, and the rules that mark it in later runs
// are removed. From an issue the owner has not marked it is refused, so the answer
// never claims a change that did not happen.
func (s *Server) clusterExpectedUndo(c echo.Context) error {
	id, idx, err := s.clusterRoute(c)
	if err != nil {
		return err
	}
	reranked, err := s.review(c, id, func(ctx context.Context, rev *store.Review) error {
		cl, err := rev.Cluster(idx)
		if err != nil {
			return noCluster(idx)
		}
		switch {
		case !cl.Expected:
			return errNotMarked
		case cl.ExpectedBy == nil || *cl.ExpectedBy != cluster.ExpectedByOwner:
			return errUndoPolicyExpected
		}
		return clearOwnersMark(ctx, rev, cl)
	})
	if err != nil {
		return err
	}
	return s.reviewed(c, id, pages.ReviewNotice{ClusterIdx: int(idx), Reranked: reranked}, "clusters")
}

// clearOwnersMark takes what the owner said of cl off it in rev — expected, or not
// expected though the policy seemed to call for it — with the rules that carry it to
// their later runs.
func clearOwnersMark(ctx context.Context, rev *store.Review, cl dbsqlc.ListTaskClustersRow) error {
	rules, err := rev.Rules(ctx)
	if err != nil {
		return err
	}
	issue := issueOf(cl.Type, cl.Category, cl.Title, cl.PolicyOverruled)
	var covering []int64
	for _, r := range rules {
		if ruleCovers(r, issue) {
			covering = append(covering, r.ID)
		}
	}
	return rev.ClearExpected(ctx, cl.Idx, covering)
}

// noOppositeRule refuses to say expected (or, with expected false, not expected) of cl
// when one of the owner's rules for the same issue says the opposite — matched as rules
// are applied, so a title that says the same in other words counts. Their later runs
// would otherwise hide the issue where it is theirs to judge and show it where the
// policy calls for it, both by the owner's word. The upsert refuses the same for an
// equal title; the owner's reviews take turns (store.BeginReview), so no rule comes in
// between.
func noOppositeRule(ctx context.Context, rev *store.Review, cl dbsqlc.ListTaskClustersRow, expected bool) error {
	rules, err := rev.Rules(ctx)
	if err != nil {
		return err
	}
	issue := issueOf(cl.Type, cl.Category, cl.Title, false)
	for _, r := range rules {
		if r.Expected != expected && ruleMatches(r, issue) {
			return errOppositeRule
		}
	}
	return nil
}

// checkReason refuses a reason longer than a mark keeps.
func checkReason(reason string) error {
	if n := utf8.RuneCountInString(reason); n > maxReasonRunes {
		return echo.NewHTTPError(http.StatusBadRequest,
			fmt.Sprintf("The reason is %d characters long; keep it to %d.", n, maxReasonRunes))
	}
	return nil
}

// review runs change on owner's task in one transaction and ranks the stored Actions
// again from the clusters as change left them, with the same selection the pipeline
// ranks them by. reranked says whether any Action's rank moved.
func (s *Server) review(c echo.Context, id uuid.UUID, change func(context.Context, *store.Review) error) (reranked bool, err error) {
	ctx := c.Request().Context()
	rev, err := s.store.BeginReview(ctx, id, auth.OwnerFrom(c))
	if errors.Is(err, store.ErrNotFinished) {
		return false, errNotFinished
	}
	if err != nil {
		return false, err
	}
	defer rev.Rollback()
	if err := change(ctx, rev); errors.Is(err, store.ErrOppositeRule) {
		return false, errOppositeRule
	} else if err != nil {
		return false, err
	}
	ranks, err := rerank(rev)
	if err != nil {
		return false, err
	}
	if err := rev.SetRanks(ctx, ranks); err != nil {
		return false, err
	}
	was := map[int32]int32{}
	for _, a := range rev.Actions() {
		if a.Rank != nil {
			was[a.CandidateIndex] = *a.Rank
		}
	}
	for _, a := range ranks {
		reranked = reranked || was[a.CandidateIndex] != a.Rank
	}
	return reranked, rev.Commit(ctx)
}

// rerank is cluster.Rerank over a review's clusters and stored Actions.
func rerank(rev *store.Review) ([]store.ActionRank, error) {
	clusters, err := cluster.FromRows(rev.Clusters())
	if err != nil {
		return nil, err
	}
	stored := make([]cluster.ActionResult, len(rev.Actions()))
	for i, a := range rev.Actions() {
		stored[i] = cluster.ActionResult{CandidateIndex: int(a.CandidateIndex), ClusterIdx: int(a.ClusterIdx), Written: a.Status.Written()}
	}
	ranked := cluster.Rerank(clusters, stored)
	out := make([]store.ActionRank, len(ranked))
	for i, a := range ranked {
		out[i] = store.ActionRank{CandidateIndex: int32(a.CandidateIndex), Rank: int32(a.Rank)}
	}
	return out, nil
}

// reviewed answers a review of a cluster (n says which and what changed): htmx gets
// the task page's body to swap in, with the clusters and Actions as they are now and a
// line that confirms the change; the plain form a 303 back to the page's section
// anchor, with the same line. For an issue now without an Action, the line says why
// (report.NoActionWords).
func (s *Server) reviewed(c echo.Context, id uuid.UUID, n pages.ReviewNotice, anchor string) error {
	r, err := s.taskReport(c, id, store.ReportPage)
	if err != nil {
		return err
	}
	var notice *pages.ReviewNotice
	for _, cl := range r.Clusters {
		if cl.Idx == n.ClusterIdx {
			// Only a mark that took a ranked Action out frees a place for the next issue.
			n.Title, n.NextInLine = cl.Title, n.Marked && n.Reranked && pages.Waiting(r) > 0
			if !n.Marked {
				n.NoAction = pages.NoActionHint(cl)
			}
			notice = &n
		}
	}
	if notice == nil {
		return noCluster(int32(n.ClusterIdx)) // the task's clusters were written again meanwhile
	}
	if !isFragment(c) {
		return s.backToTask(c, id, notice.Sentence(), anchor)
	}
	v, err := s.taskView(c, r)
	if err != nil {
		return err
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

// issueOf is the cluster a rule is matched against: its type, category and title, and
// whether the owner's word on it is that it is not expected.
func issueOf(typ, category, title string, overruled bool) cluster.Cluster {
	return cluster.Cluster{Type: analyzer.FindingType(typ), Category: category, Title: title, PolicyOverruled: overruled}
}

// ruleMatches reports whether the owner's rule r is for issue, whatever it says of it.
func ruleMatches(r dbsqlc.ListExpectedRulesRow, issue cluster.Cluster) bool {
	return cluster.Rule{Type: analyzer.FindingType(r.Type), Category: r.Category, Title: r.Title}.Matches(issue)
}

// ruleCovers reports whether the owner's rule, as stored, says of issue what the owner
// said of it — expected, or not expected though the policy seemed to call for it: the
// one test the take-back and the task page's rules-gone line both ask.
func ruleCovers(r dbsqlc.ListExpectedRulesRow, issue cluster.Cluster) bool {
	return r.Expected != issue.PolicyOverruled && ruleMatches(r, issue)
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
		return echo.NewHTTPError(http.StatusNotFound, "There is no such issue in this diagnosis.")
	}
	return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("There is no issue %d in this diagnosis.", idx))
}
