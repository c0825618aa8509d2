package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// The outcome labels an owner gives a task's conversations on the pages or through the
// API. A label given is an outcome label like one from the upload (which wins when
// the two disagree, both kept), it belongs to the task's agent, and it makes the
// agent's detector learn again.

// LabelChange is what the owner says of one conversation's outcome: Outcome "failed" or
// "succeeded", or "" to take their label back. The conversation is named by its id in
// the export (ExternalID) or, when that is empty, by its seq.
type LabelChange struct {
	Seq        int32
	ExternalID string
	Outcome    string
}

// name is how an error names the conversation: as the change named it.
func (c LabelChange) name() string {
	if c.ExternalID != "" {
		return c.ExternalID
	}
	return "#" + strconv.Itoa(int(c.Seq))
}

// LabelsRefused is the error of a change that names conversations it cannot label,
// each as the change named it: none of its labels is stored.
type LabelsRefused struct {
	Unknown []string // no conversation of the task has this id (or number)
	NotKept []string // set aside by the quality checks: it is not analysed, so not labelled
	Twice   []string // named more than once in the change
}

func (e *LabelsRefused) Error() string {
	return fmt.Sprintf("store: labels refused: unknown %v, not kept %v, named twice %v", e.Unknown, e.NotKept, e.Twice)
}

// LabelledConversation is one conversation's labels after a change: its outcome label
// and where it came from, and what the owner said, when.
type LabelledConversation struct {
	Seq           int32
	ExternalID    string
	Label         *string
	LabelSource   *string
	ReviewedLabel *string
	ReviewedAt    *time.Time
}

// LabelsSet is what a change of labels did: the conversations as they are now, in the
// order the change named them, and the task's agent after it (nil for a task without
// one): its detector is learning when the change asked it to, or another had.
type LabelsSet struct {
	Conversations []LabelledConversation
	Agent         *AgentState
}

// labelLockClass is the first key of the advisory lock that serialises an owner's
// changes of labels (LockOwner): each counts the agent's labels after its own to decide
// whether the detector learns again, and two changes at once, each counting before the
// other commits, could both find too few.
const labelLockClass = 0x6c626c // "lbl"

// SetLabels stores the owner's outcome for each conversation of changes, in one
// transaction: all of them, or none when one names a conversation that does not exist,
// is not kept, or is named twice (LabelsRefused). A task that does not exist or is
// another owner's is ErrNotFound. When a change moves an outcome label the agent's
// detector learns from, and the agent then has at least minPerOutcome labels of each
// outcome or has a detector already (which labels taken back may remove), it asks in
// the same transaction for the detector to learn again and this task to be scored
// anew: one waiting learning task per agent, which a burst of labels joins.
// minPerOutcome is the detector's minimum (detector.MinPerOutcome), which this layer
// cannot import.
func (s *Store) SetLabels(ctx context.Context, id uuid.UUID, owner Owner, changes []LabelChange, minPerOutcome int) (LabelsSet, error) {
	var out LabelsSet
	uid := owner.UserID()
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(tx pgx.Tx) error {
		if err := s.q.LockOwner(ctx, tx, dbsqlc.LockOwnerParams{LockClass: labelLockClass, OwnerUserID: uid}); err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		// The task's row before its conversations', as every worker's transaction takes
		// them (its lease, or a learning task's LockTaskForReview): the other way round,
		// a label given while the task is scored again would deadlock with it.
		if _, err := s.q.LockTaskForReview(ctx, tx, dbsqlc.LockTaskForReviewParams{ID: id, OwnerUserID: uid}); err != nil {
			return err
		}
		task, err := s.q.GetAnalysisTask(ctx, tx, dbsqlc.GetAnalysisTaskParams{ID: id, OwnerUserID: uid})
		if err != nil {
			return err
		}
		targets, err := s.labelTargets(ctx, tx, id, uid, changes)
		if err != nil {
			return err
		}
		input := make([]reviewedLabel, len(changes))
		for i, c := range changes {
			input[i] = reviewedLabel{Seq: targets[i].Seq}
			if c.Outcome != "" {
				input[i].Outcome = &c.Outcome
			}
		}
		raw, err := json.Marshal(input)
		if err != nil {
			return err
		}
		rows, err := s.q.SetReviewedLabels(ctx, tx, dbsqlc.SetReviewedLabelsParams{Labels: raw, ReviewerID: &uid, TaskID: id, OwnerUserID: uid})
		if err != nil {
			return fmt.Errorf("set: %w", err)
		}
		out.Conversations = labelledInOrder(targets, rows)
		moved := slices.ContainsFunc(out.Conversations, func(c LabelledConversation) bool {
			i := slices.IndexFunc(targets, func(t dbsqlc.FindLabelTargetsRow) bool { return t.Seq == c.Seq })
			return !sameLabel(targets[i].Label, c.Label)
		})
		if _, err := s.q.RefreshKeptLabelCounts(ctx, tx, dbsqlc.RefreshKeptLabelCountsParams{ID: id, OwnerUserID: uid}); err != nil {
			return fmt.Errorf("counts: %w", err)
		}
		if task.AgentID == nil {
			return nil
		}
		if moved {
			if err := s.learnFromLabels(ctx, tx, owner, *task.AgentID, id, minPerOutcome); err != nil {
				return err
			}
		}
		agent, err := s.agentState(ctx, tx, *task.AgentID, uid)
		out.Agent = &agent
		return err
	})
	if err != nil {
		return LabelsSet{}, readError("labels", err)
	}
	return out, nil
}

// reviewedLabel is one element of SetReviewedLabels' input.
type reviewedLabel struct {
	Seq     int32   `json:"seq"`
	Outcome *string `json:"outcome"`
}

// labelTargets finds the conversation each change names, in the order of changes, or
// says which it cannot label.
func (s *Store) labelTargets(ctx context.Context, tx pgx.Tx, id uuid.UUID, uid int64, changes []LabelChange) ([]dbsqlc.FindLabelTargetsRow, error) {
	p := dbsqlc.FindLabelTargetsParams{TaskID: id, OwnerUserID: uid, Seqs: []int32{}, ExternalIds: []string{}}
	for _, c := range changes {
		if c.ExternalID != "" {
			p.ExternalIds = append(p.ExternalIds, c.ExternalID)
		} else {
			p.Seqs = append(p.Seqs, c.Seq)
		}
	}
	rows, err := s.q.FindLabelTargets(ctx, tx, p)
	if err != nil {
		return nil, fmt.Errorf("find: %w", err)
	}
	out := make([]dbsqlc.FindLabelTargetsRow, len(changes))
	refused := &LabelsRefused{}
	seen := map[int32]bool{}
	for i, c := range changes {
		j := slices.IndexFunc(rows, func(r dbsqlc.FindLabelTargetsRow) bool {
			return c.ExternalID != "" && r.ExternalID == c.ExternalID || c.ExternalID == "" && r.Seq == c.Seq
		})
		switch {
		case j < 0:
			refused.Unknown = append(refused.Unknown, c.name())
		case rows[j].QcStatus != "kept":
			refused.NotKept = append(refused.NotKept, c.name())
		case seen[rows[j].Seq]:
			refused.Twice = append(refused.Twice, c.name())
		default:
			out[i] = rows[j]
			seen[rows[j].Seq] = true
		}
	}
	if len(refused.Unknown)+len(refused.NotKept)+len(refused.Twice) > 0 {
		return nil, refused
	}
	return out, nil
}

// sameLabel reports whether two outcome labels are the same (both none, or equal):
// a change that leaves every label as it was (the upload's label stands, or the owner
// says what it says) gives the detector nothing new to learn.
func sameLabel(a, b *string) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// labelledInOrder is the changed rows in the order of targets, with their export ids.
func labelledInOrder(targets []dbsqlc.FindLabelTargetsRow, rows []dbsqlc.SetReviewedLabelsRow) []LabelledConversation {
	out := make([]LabelledConversation, 0, len(targets))
	for _, t := range targets {
		i := slices.IndexFunc(rows, func(r dbsqlc.SetReviewedLabelsRow) bool { return r.Seq == t.Seq })
		if i < 0 {
			continue
		}
		r := rows[i]
		out = append(out, LabelledConversation{Seq: r.Seq, ExternalID: t.ExternalID, Label: r.Label, LabelSource: r.LabelSource,
			ReviewedLabel: r.ReviewedLabel, ReviewedAt: r.ReviewedAt})
	}
	return out
}

// learnFromLabels asks inside tx, after a change moved a label, for the agent's
// detector to learn again with task to be scored anew, when the agent has enough
// labels of each outcome or a detector already.
func (s *Store) learnFromLabels(ctx context.Context, tx pgx.Tx, owner Owner, agentID int64, task uuid.UUID, minPerOutcome int) error {
	uid := owner.UserID()
	counts, err := s.q.CountAgentLabels(ctx, tx, dbsqlc.CountAgentLabelsParams{AgentID: agentID, OwnerUserID: uid})
	if err != nil {
		return fmt.Errorf("count: %w", err)
	}
	agent, err := s.q.GetAgent(ctx, tx, dbsqlc.GetAgentParams{ID: agentID, OwnerUserID: uid})
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	if int(counts.Failed) < minPerOutcome || int(counts.Succeeded) < minPerOutcome {
		if agent.FailureModelVersion == nil {
			return nil
		}
	}
	return s.requestLearning(ctx, tx, owner, agentID, []uuid.UUID{task})
}
