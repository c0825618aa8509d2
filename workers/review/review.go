// Package review holds the rules of an owner's review of a finished diagnosis: marking
// an issue expected behaviour (a risk only with a reason), saying that one the agent's
// policy seemed to call for is not expected, taking either back, and ranking the
// stored Actions again with the selection the pipeline ranks them by. The handlers
// parse the request and answer it; what may be said of which issue is decided here.
package review

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/cluster"
)

// MaxReasonRunes is the longest reason a mark keeps.
const MaxReasonRunes = 500

// Refused is a review the owner cannot make as asked, with the sentence that says why.
// Invalid is set when the request itself is wrong (a reason too long, a risk without
// one); otherwise the issue's state does not allow it.
type Refused struct {
	Sentence locale.Text
	Invalid  bool
}

func (r *Refused) Error() string { return "review: refused " + r.Sentence.String() }

func conflict(id string) *Refused { return &Refused{Sentence: locale.Msg(id)} }

// The refusals, each a sentence for the owner (the catalog's review_refused.*).
var (
	ErrNotFinished        = conflict("review_refused.not_finished")
	ErrPolicyExpected     = conflict("review_refused.policy_expected")
	ErrUndoPolicyExpected = conflict("review_refused.undo_policy_expected")
	ErrOverruled          = conflict("review_refused.overruled")
	ErrNotPolicyExpected  = conflict("review_refused.not_policy_expected")
	ErrOwnerExpected      = conflict("review_refused.owner_expected")
	ErrNotOverruled       = conflict("review_refused.not_overruled")
	ErrNotMarked          = conflict("review_refused.not_marked")
	ErrOppositeRule       = conflict("review_refused.opposite_rule")
	ErrWidenOpposite      = conflict("review_refused.widen_opposite")
	// ErrRiskNeedsReason: a risk marked expected leaves every later diagnosis's risks
	// too, so the mark says why, for whoever reads the rule later.
	ErrRiskNeedsReason = &Refused{Invalid: true, Sentence: locale.Msg("review_refused.risk_needs_reason")}
)

// ErrNoCluster is a cluster index the task does not have.
var ErrNoCluster = errors.New("review: no such cluster")

// Change is one review of one cluster, inside the review's transaction.
type Change func(ctx context.Context, rev *store.Review) error

// Apply runs change on owner's task id in one transaction and ranks the stored Actions
// again from the clusters as change left them. reranked says whether any Action's rank
// moved. Another owner's task is store.ErrNotFound; a task still running ErrNotFinished.
func Apply(ctx context.Context, st *store.Store, id uuid.UUID, owner store.Owner, change Change) (reranked bool, err error) {
	rev, err := st.BeginReview(ctx, id, owner)
	if errors.Is(err, store.ErrNotFinished) {
		return false, ErrNotFinished
	}
	if err != nil {
		return false, err
	}
	defer rev.Rollback()
	if err := change(ctx, rev); errors.Is(err, store.ErrOppositeRule) {
		return false, ErrOppositeRule
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

// MarkExpected says cluster idx is expected behaviour, with a reason (required for a
// RISK issue): it joins the expected behaviour, its Action leaves the ranking, and a
// rule marks the same issue in the owner's later runs.
func MarkExpected(idx int32, reason string) Change {
	return mark(idx, reason, true, func(cl dbsqlc.ListTaskClustersRow) error {
		switch {
		case cl.PolicyOverruled:
			return ErrOverruled
		case cl.Expected && !ByOwner(cl.ExpectedBy):
			return ErrPolicyExpected
		case reason == "" && cl.Type == string(analyzer.TypeRisk):
			return ErrRiskNeedsReason
		}
		return nil
	})
}

// UndoExpected takes the owner's mark of cluster idx back, with the rules that carry it
// to their later runs. From an issue the owner has not marked it is refused, so the
// answer never claims a change that did not happen.
func UndoExpected(idx int32) Change {
	return undo(idx, func(cl dbsqlc.ListTaskClustersRow) error {
		switch {
		case !cl.Expected:
			return ErrNotMarked
		case !ByOwner(cl.ExpectedBy):
			return ErrUndoPolicyExpected
		}
		return nil
	})
}

// MarkNotExpected says a cluster the agent's policy seemed to call for is not
// expected, with an optional reason: it becomes an issue, and a rule says the same in
// the owner's later runs. Saying it again only changes the reason.
func MarkNotExpected(idx int32, reason string) Change {
	return mark(idx, reason, false, func(cl dbsqlc.ListTaskClustersRow) error {
		switch {
		case cl.Expected && (cl.ExpectedBy == nil || *cl.ExpectedBy != cluster.ExpectedByPolicy):
			return ErrOwnerExpected
		case !cl.Expected && !cl.PolicyOverruled:
			return ErrNotPolicyExpected
		}
		return nil
	})
}

// UndoNotExpected takes back the owner's word that cluster idx is not expected: the
// policy makes it expected again. Refused when the owner has not said it.
func UndoNotExpected(idx int32) Change {
	return undo(idx, func(cl dbsqlc.ListTaskClustersRow) error {
		if !cl.PolicyOverruled {
			return ErrNotOverruled
		}
		return nil
	})
}

// ByOwner reports whether expectedBy, a cluster's expected_by, says its owner's word
// (a mark, or a rule of theirs) makes it expected.
func ByOwner(expectedBy *string) bool {
	return expectedBy != nil && *expectedBy == cluster.ExpectedByOwner
}

// mark stores the owner's word on cluster idx, expected or not, with its reason, once
// allowed lets it and no rule of theirs says the opposite.
func mark(idx int32, reason string, expected bool, allowed func(dbsqlc.ListTaskClustersRow) error) Change {
	return func(ctx context.Context, rev *store.Review) error {
		cl, err := allowedCluster(rev, idx, allowed)
		if err != nil {
			return err
		}
		if err := checkReason(reason); err != nil {
			return err
		}
		if err := noOppositeRule(ctx, rev, cl, expected); err != nil {
			return err
		}
		m := store.ExpectedMark{Reason: reason, NormalTitle: cluster.NormalTitle(cl.Title)}
		if expected {
			return rev.MarkExpected(ctx, idx, m)
		}
		return rev.MarkNotExpected(ctx, idx, m)
	}
}

// undo takes the owner's word on cluster idx back, once allowed lets it.
func undo(idx int32, allowed func(dbsqlc.ListTaskClustersRow) error) Change {
	return func(ctx context.Context, rev *store.Review) error {
		cl, err := allowedCluster(rev, idx, allowed)
		if err != nil {
			return err
		}
		return clearOwnersMark(ctx, rev, cl)
	}
}

// WidenRule makes owner's rule id apply to all their agents, not only to the agent of
// the diagnosis it was made on. Their rules for the same issue on other agents that say
// the same are folded into it (removed); one that says the opposite refuses it
// (ErrWidenOpposite). A rule that does not exist or belongs to someone else is
// store.ErrNotFound.
func WidenRule(ctx context.Context, st *store.Store, owner store.Owner, id int64) error {
	return st.WidenExpectedRule(ctx, id, owner, func(rule dbsqlc.ListExpectedRulesRow, others []dbsqlc.ListExpectedRulesRow) ([]int64, error) {
		issue := IssueOf(rule.Type, rule.Category, rule.Title, !rule.Expected)
		var covered []int64
		for _, o := range others {
			if !ruleMatches(o, issue) {
				continue
			}
			if o.Expected != rule.Expected {
				return nil, ErrWidenOpposite
			}
			covered = append(covered, o.ID)
		}
		return covered, nil
	})
}

// IssueOf is the cluster a rule is matched against: its type, category and title, and
// whether the owner's word on it is that it is not expected.
func IssueOf(typ, category, title string, overruled bool) cluster.Cluster {
	return cluster.Cluster{Type: analyzer.FindingType(typ), Category: category, Title: title, PolicyOverruled: overruled}
}

// RuleCovers reports whether the owner's rule, as stored, says of issue what the owner
// said of it — expected, or not expected though the policy seemed to call for it: the
// one test the take-back and the task page's rules-gone line both ask.
func RuleCovers(r dbsqlc.ListExpectedRulesRow, issue cluster.Cluster) bool {
	return r.Expected != issue.PolicyOverruled && ruleMatches(r, issue)
}

// ruleMatches reports whether the owner's rule r is for issue, whatever it says of it.
func ruleMatches(r dbsqlc.ListExpectedRulesRow, issue cluster.Cluster) bool {
	return cluster.Rule{Type: analyzer.FindingType(r.Type), Category: r.Category, Title: r.Title}.Matches(issue)
}

// allowedCluster is cluster idx of the review, once allowed lets the change be made to
// it; ErrNoCluster when the task has no such cluster.
func allowedCluster(rev *store.Review, idx int32, allowed func(dbsqlc.ListTaskClustersRow) error) (dbsqlc.ListTaskClustersRow, error) {
	cl, err := rev.Cluster(idx)
	if err != nil {
		return cl, ErrNoCluster
	}
	return cl, allowed(cl)
}

// clearOwnersMark takes what the owner said of cl off it in rev — expected, or not
// expected though the policy seemed to call for it — with the rules that carry it to
// their later runs.
func clearOwnersMark(ctx context.Context, rev *store.Review, cl dbsqlc.ListTaskClustersRow) error {
	rules, err := rev.Rules(ctx)
	if err != nil {
		return err
	}
	issue := IssueOf(cl.Type, cl.Category, cl.Title, cl.PolicyOverruled)
	var covering []int64
	for _, r := range rules {
		if RuleCovers(r, issue) {
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
	issue := IssueOf(cl.Type, cl.Category, cl.Title, false)
	for _, r := range rules {
		if r.Expected != expected && ruleMatches(r, issue) {
			return ErrOppositeRule
		}
	}
	return nil
}

// checkReason refuses a reason longer than a mark keeps.
func checkReason(reason string) error {
	if n := utf8.RuneCountInString(reason); n > MaxReasonRunes {
		return &Refused{Invalid: true, Sentence: locale.Msg("review_refused.reason_too_long", "N", n, "Max", MaxReasonRunes)}
	}
	return nil
}

// rerank is cluster.Rerank over a review's clusters and stored Actions.
func rerank(rev *store.Review) ([]store.ActionRank, error) {
	clusters, err := cluster.FromRows(rev.Clusters())
	if err != nil {
		return nil, err
	}
	ranked := cluster.Rerank(clusters, cluster.ResultsFromRows(rev.Actions()))
	out := make([]store.ActionRank, len(ranked))
	for i, a := range ranked {
		out[i] = store.ActionRank{CandidateIndex: int32(a.CandidateIndex), Rank: int32(a.Rank)}
	}
	return out, nil
}
