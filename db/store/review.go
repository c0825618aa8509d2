package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// The owner's review of a finished task: marking a cluster expected behaviour, or
// saying that one the policy seemed to call for is not, or taking either back, with the
// rule that carries the owner's word to their later runs, and the Actions re-ranked to
// match.

// ErrNotFinished refuses a review of a task that is still running: its clusters and
// Actions are not all written yet.
var ErrNotFinished = errors.New("store: the task has not finished")

// ErrOppositeRule refuses a mark when the owner's rule for the same issue says the
// opposite (expected, or not expected though the policy seems to call for it): it would
// silently turn round what their later runs, and the run it came from, were told.
var ErrOppositeRule = errors.New("store: the owner's rule for this issue says the opposite")

// Review is one change to a finished task's clusters, inside one transaction that
// holds the task's row: the caller reads the clusters and the stored Actions, marks or
// unmarks a cluster, gives the Actions their new ranks and commits. Rollback (deferred
// by every caller) discards it. A Review is used by one goroutine.
type Review struct {
	s        *Store
	tx       pgx.Tx
	id       uuid.UUID
	owner    Owner
	agent    *int64 // the task's agent, whose rules apply to it; nil for a task without one
	clusters []dbsqlc.ListTaskClustersRow
	actions  []dbsqlc.ListActionCheckpointsRow
}

// reviewLockClass is the first key of the advisory lock that serialises an owner's
// reviews (LockOwner); the second is the owner. A mark checks the owner's rules for one
// that says the opposite before it stores its own, and two marks in two tabs, each
// checking before the other commits, would both pass.
const reviewLockClass = 0x726576 // "rev"

// BeginReview locks owner's task id for a review and reads its clusters and Actions. A
// task that does not exist or belongs to someone else is ErrNotFound; one that is still
// pending or running is ErrNotFinished. The owner's other reviews wait for this one to
// end, and it reads in READ COMMITTED, so it sees the rules the last one stored.
func (s *Store) BeginReview(ctx context.Context, id uuid.UUID, owner Owner) (*Review, error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return nil, fmt.Errorf("store: begin review: %w", err)
	}
	r := &Review{s: s, tx: tx, id: id, owner: owner}
	if err := r.read(ctx); err != nil {
		r.Rollback()
		return nil, err
	}
	return r, nil
}

func (r *Review) read(ctx context.Context) error {
	uid := r.owner.UserID()
	if err := r.s.q.LockOwner(ctx, r.tx, dbsqlc.LockOwnerParams{LockClass: reviewLockClass, OwnerUserID: uid}); err != nil {
		return fmt.Errorf("store: review: lock: %w", err)
	}
	task, err := r.s.q.LockTaskForReview(ctx, r.tx, dbsqlc.LockTaskForReviewParams{ID: r.id, OwnerUserID: uid})
	if err != nil {
		return readError("review", err)
	}
	if !task.Status.Terminal() {
		return ErrNotFinished
	}
	r.agent = task.AgentID
	if r.clusters, err = r.s.q.ListTaskClusters(ctx, r.tx, dbsqlc.ListTaskClustersParams{TaskID: r.id, OwnerUserID: uid}); err != nil {
		return fmt.Errorf("store: review: clusters: %w", err)
	}
	if r.actions, err = r.s.q.ListActionCheckpoints(ctx, r.tx, dbsqlc.ListActionCheckpointsParams{TaskID: r.id, OwnerUserID: uid}); err != nil {
		return fmt.Errorf("store: review: Actions: %w", err)
	}
	return nil
}

// Clusters are the task's clusters, most urgent first, as they are in the review so
// far.
func (r *Review) Clusters() []dbsqlc.ListTaskClustersRow { return r.clusters }

// Actions are the task's stored Actions, in candidate order.
func (r *Review) Actions() []dbsqlc.ListActionCheckpointsRow { return r.actions }

// Cluster is the cluster idx of the task; ErrNotFound when there is none.
func (r *Review) Cluster(idx int32) (dbsqlc.ListTaskClustersRow, error) {
	for _, c := range r.clusters {
		if c.Idx == idx {
			return c, nil
		}
	}
	return dbsqlc.ListTaskClustersRow{}, ErrNotFound
}

// ExpectedMark is what an owner says of a cluster, expected behaviour or not expected
// though the policy seems to call for it: why, and the title its rule is stored by.
type ExpectedMark struct {
	Reason string // may be empty
	// NormalTitle is the cluster's title as its rule is stored (cluster.NormalTitle).
	NormalTitle string
}

// MarkExpected marks cluster idx expected behaviour by the owner, with the reason, and
// stores the owner's rule that marks it in the later runs of the task's agent;
// ErrOppositeRule when their rule for the issue says it is not expected.
func (r *Review) MarkExpected(ctx context.Context, idx int32, mark ExpectedMark) error {
	by := "owner"
	if err := r.setExpected(ctx, idx, clusterMark{expected: true, by: &by, reason: mark.Reason}); err != nil {
		return err
	}
	return r.storeRule(ctx, idx, mark, true)
}

// MarkNotExpected makes cluster idx, which the agent's policy seemed to call for, an
// issue as the owner says, with the reason, and stores the owner's rule that says so in
// the later runs of the task's agent; ErrOppositeRule when their rule for the issue
// marks it expected.
func (r *Review) MarkNotExpected(ctx context.Context, idx int32, mark ExpectedMark) error {
	if err := r.setExpected(ctx, idx, clusterMark{overruled: true, reason: mark.Reason}); err != nil {
		return err
	}
	return r.storeRule(ctx, idx, mark, false)
}

func (r *Review) storeRule(ctx context.Context, idx int32, mark ExpectedMark, expected bool) error {
	c, err := r.Cluster(idx)
	if err != nil {
		return err
	}
	id := r.id
	if _, err := r.s.q.UpsertExpectedRule(ctx, r.tx, dbsqlc.UpsertExpectedRuleParams{
		OwnerUserID: r.owner.UserID(), AgentID: r.agent, Type: c.Type, Category: c.Category, NormalTitle: mark.NormalTitle,
		Title: c.Title, Reason: mark.Reason, SourceTaskID: &id, Expected: expected,
	}); errors.Is(err, pgx.ErrNoRows) {
		return ErrOppositeRule
	} else if err != nil {
		return fmt.Errorf("store: expected behaviour rule: %w", err)
	}
	return nil
}

// ClearExpected takes the owner's word off cluster idx — it is an issue again when they
// had marked it expected, expected by the policy again when they had said it is not —
// and removes the owner's rules ruleIDs (those that cover it), so their later runs do
// not say it either.
func (r *Review) ClearExpected(ctx context.Context, idx int32, ruleIDs []int64) error {
	c, err := r.Cluster(idx)
	if err != nil {
		return err
	}
	mark := clusterMark{}
	if c.PolicyOverruled {
		by := "policy"
		mark = clusterMark{expected: true, by: &by}
	}
	if err := r.setExpected(ctx, idx, mark); err != nil {
		return err
	}
	if len(ruleIDs) == 0 {
		return nil
	}
	if _, err := r.s.q.DeleteExpectedRules(ctx, r.tx, dbsqlc.DeleteExpectedRulesParams{OwnerUserID: r.owner.UserID(), Ids: ruleIDs}); err != nil {
		return fmt.Errorf("store: remove expected behaviour rules: %w", err)
	}
	return nil
}

// Rules are the owner's rules of expected behaviour that apply to the task (those of
// its agent and those for all agents), read in the review's transaction.
func (r *Review) Rules(ctx context.Context) ([]dbsqlc.ListExpectedRulesRow, error) {
	rows, err := r.s.q.ListExpectedRules(ctx, r.tx, dbsqlc.ListExpectedRulesParams{OwnerUserID: r.owner.UserID(), ForAgent: true, AgentID: r.agent})
	if err != nil {
		return nil, fmt.Errorf("store: expected behaviour rules: %w", err)
	}
	return rows, nil
}

// clusterMark is what a review sets of a cluster: whether it is expected and by whom,
// or overruled (an issue though the policy seemed to call for it), and the owner's
// reason.
type clusterMark struct {
	expected, overruled bool
	by                  *string
	reason              string
}

// setExpected stores m on cluster idx, and what follows from it on its conversations:
// the most severe of their findings that are issues, and those findings' categories.
func (r *Review) setExpected(ctx context.Context, idx int32, m clusterMark) error {
	n, err := r.s.q.SetClusterExpected(ctx, r.tx, dbsqlc.SetClusterExpectedParams{
		Expected: m.expected, ExpectedBy: m.by, ExpectedReason: m.reason, PolicyOverruled: m.overruled,
		TaskID: r.id, OwnerUserID: r.owner.UserID(), Idx: idx,
	})
	if err != nil {
		return fmt.Errorf("store: mark cluster %d: %w", idx, err)
	}
	if n == 0 {
		return ErrNotFound
	}
	if _, err := r.s.q.RefreshIssueColumns(ctx, r.tx, dbsqlc.RefreshIssueColumnsParams{
		TaskID: r.id, OwnerUserID: r.owner.UserID(), Idxs: []int32{idx},
	}); err != nil {
		return fmt.Errorf("store: conversations of cluster %d: %w", idx, err)
	}
	for i := range r.clusters {
		if r.clusters[i].Idx == idx {
			c := &r.clusters[i]
			c.Expected, c.ExpectedBy, c.ExpectedReason, c.PolicyOverruled = m.expected, m.by, m.reason, m.overruled
		}
	}
	return nil
}

// ActionRank is the rank one stored Action gets; Rank 0 leaves it unranked.
type ActionRank struct {
	CandidateIndex int32
	Rank           int32
}

// SetRanks gives the stored Actions their ranks, every one of them at once, so the
// ranks stay unique and without gaps at every moment another transaction can see.
func (r *Review) SetRanks(ctx context.Context, ranks []ActionRank) error {
	uid := r.owner.UserID()
	if _, err := r.s.q.ClearTaskActionRanks(ctx, r.tx, dbsqlc.ClearTaskActionRanksParams{TaskID: r.id, OwnerUserID: uid}); err != nil {
		return fmt.Errorf("store: clear Action ranks: %w", err)
	}
	p := dbsqlc.SetTaskActionRanksParams{TaskID: r.id, OwnerUserID: uid}
	for _, a := range ranks {
		if a.Rank > 0 {
			p.CandidateIndexes = append(p.CandidateIndexes, a.CandidateIndex)
			p.Ranks = append(p.Ranks, a.Rank)
		}
	}
	if _, err := r.s.q.SetTaskActionRanks(ctx, r.tx, p); err != nil {
		return fmt.Errorf("store: set Action ranks: %w", err)
	}
	return nil
}

// Commit stores the review.
func (r *Review) Commit(ctx context.Context) error {
	if err := r.tx.Commit(ctx); err != nil {
		return fmt.Errorf("store: commit review: %w", err)
	}
	return nil
}

// Rollback discards the review; it does nothing after Commit.
func (r *Review) Rollback() { _ = r.tx.Rollback(context.Background()) }

// ExpectedRules lists owner's rules of expected behaviour, by agent (those for all
// agents first), newest first.
func (s *Store) ExpectedRules(ctx context.Context, owner Owner) ([]dbsqlc.ListExpectedRulesRow, error) {
	rows, err := s.q.ListExpectedRules(ctx, s.pool, dbsqlc.ListExpectedRulesParams{OwnerUserID: owner.UserID()})
	if err != nil {
		return nil, fmt.Errorf("store: expected behaviour rules: %w", err)
	}
	return rows, nil
}

// AgentExpectedRules lists owner's rules that apply to the runs of agent (its own, and
// those for all agents; for nil, those for all agents), newest first.
func (s *Store) AgentExpectedRules(ctx context.Context, owner Owner, agent *int64) ([]dbsqlc.ListExpectedRulesRow, error) {
	rows, err := s.q.ListExpectedRules(ctx, s.pool, dbsqlc.ListExpectedRulesParams{OwnerUserID: owner.UserID(), ForAgent: true, AgentID: agent})
	if err != nil {
		return nil, fmt.Errorf("store: expected behaviour rules: %w", err)
	}
	return rows, nil
}

// WidenExpectedRule makes owner's rule id apply to all their agents, in a transaction
// that takes the owner's turn among their reviews (so no mark slips in between).
// covered decides, from the rule and the owner's other rules, which of those the
// widened rule makes redundant (they are removed), or refuses with its error. A rule
// that does not exist or belongs to someone else is ErrNotFound.
func (s *Store) WidenExpectedRule(ctx context.Context, id int64, owner Owner,
	covered func(rule dbsqlc.ListExpectedRulesRow, others []dbsqlc.ListExpectedRulesRow) ([]int64, error)) error {
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(tx pgx.Tx) error {
		uid := owner.UserID()
		if err := s.q.LockOwner(ctx, tx, dbsqlc.LockOwnerParams{LockClass: reviewLockClass, OwnerUserID: uid}); err != nil {
			return fmt.Errorf("store: widen rule: lock: %w", err)
		}
		rules, err := s.q.ListExpectedRules(ctx, tx, dbsqlc.ListExpectedRulesParams{OwnerUserID: uid})
		if err != nil {
			return fmt.Errorf("store: widen rule: %w", err)
		}
		var rule *dbsqlc.ListExpectedRulesRow
		var others []dbsqlc.ListExpectedRulesRow
		for i := range rules {
			if rules[i].ID == id {
				rule = &rules[i]
			} else {
				others = append(others, rules[i])
			}
		}
		if rule == nil {
			return ErrNotFound
		}
		redundant, err := covered(*rule, others)
		if err != nil {
			return err
		}
		if len(redundant) > 0 {
			if _, err := s.q.DeleteExpectedRules(ctx, tx, dbsqlc.DeleteExpectedRulesParams{OwnerUserID: uid, Ids: redundant}); err != nil {
				return fmt.Errorf("store: widen rule: remove covered rules: %w", err)
			}
		}
		if _, err := s.q.WidenExpectedRule(ctx, tx, dbsqlc.WidenExpectedRuleParams{OwnerUserID: uid, ID: id}); err != nil {
			return fmt.Errorf("store: widen rule: %w", err)
		}
		return nil
	})
}

// DeleteExpectedRule removes owner's rule id: their later runs no longer mark what it
// covers, and the marks it made in earlier runs stay. A rule that does not exist or
// belongs to someone else is ErrNotFound.
func (s *Store) DeleteExpectedRule(ctx context.Context, id int64, owner Owner) error {
	n, err := s.q.DeleteExpectedRules(ctx, s.pool, dbsqlc.DeleteExpectedRulesParams{OwnerUserID: owner.UserID(), Ids: []int64{id}})
	if err != nil {
		return fmt.Errorf("store: remove expected behaviour rule: %w", err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}
