package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// What the agents' pages, and the pages that label, read of an agent: its detector,
// its labels and its runs.

// AgentState is what one of the owner's agents has learned from its labels: how many
// of each outcome it has, whether it has a detector, and whether the detector waits to
// learn again or is learning now.
type AgentState struct {
	ID          int64
	Name        string
	Labels      AgentLabels
	HasDetector bool
	Learning    bool
}

// AgentDetail is one of the owner's agents as its page shows it.
type AgentDetail struct {
	AgentState
	CreatedAt time.Time
	// FailureModel is the summary of the detector that scores its runs now, nil
	// without one.
	FailureModel json.RawMessage
	Runs         []dbsqlc.ListAgentTasksRow
}

// AgentDetail reads owner's agent id with its labels, detector and latest runs (at
// most runs), in one read-only snapshot. An agent that does not exist or is another
// owner's is ErrNotFound.
func (s *Store) AgentDetail(ctx context.Context, id int64, owner Owner, runs int) (AgentDetail, error) {
	var d AgentDetail
	uid := owner.UserID()
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		row, err := s.q.GetAgentDetail(ctx, tx, dbsqlc.GetAgentDetailParams{ID: id, OwnerUserID: uid})
		if err != nil {
			return err
		}
		d.CreatedAt, d.FailureModel = row.CreatedAt, row.FailureModel
		if d.AgentState, err = s.agentState(ctx, tx, id, uid); err != nil {
			return err
		}
		if runs > 0 {
			d.Runs, err = s.q.ListAgentTasks(ctx, tx, dbsqlc.ListAgentTasksParams{AgentID: id, OwnerUserID: uid, MaxRows: int32(runs)})
		}
		return err
	})
	if err != nil {
		return AgentDetail{}, readError("agent", err)
	}
	return d, nil
}

// AgentState reads what owner's agent id has learned from its labels, in one read-only
// snapshot; ErrNotFound for an agent that does not exist or is another owner's.
func (s *Store) AgentState(ctx context.Context, id int64, owner Owner) (AgentState, error) {
	var a AgentState
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		a, err = s.agentState(ctx, tx, id, owner.UserID())
		return err
	})
	if err != nil {
		return AgentState{}, readError("agent state", err)
	}
	return a, nil
}

// agentState reads agent id's state inside tx.
func (s *Store) agentState(ctx context.Context, tx pgx.Tx, id, uid int64) (AgentState, error) {
	agent, err := s.q.GetAgent(ctx, tx, dbsqlc.GetAgentParams{ID: id, OwnerUserID: uid})
	if err != nil {
		return AgentState{}, err
	}
	labels, err := s.q.CountAgentLabels(ctx, tx, dbsqlc.CountAgentLabelsParams{AgentID: id, OwnerUserID: uid})
	if err != nil {
		return AgentState{}, fmt.Errorf("labels: %w", err)
	}
	pending, err := s.q.GetPendingLearning(ctx, tx, dbsqlc.GetPendingLearningParams{AgentID: id, OwnerUserID: uid})
	if err != nil {
		return AgentState{}, fmt.Errorf("learning: %w", err)
	}
	return AgentState{
		ID: id, Name: agent.Name, HasDetector: agent.FailureModelVersion != nil, Learning: len(pending) > 0,
		Labels: AgentLabels{Failed: int(labels.Failed), Succeeded: int(labels.Succeeded), Runs: int(labels.Runs)},
	}, nil
}
