package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// The agent aggregate: an owner's agents, what each has learned (its failure detector)
// and the requests to learn again.

// AgentPrompt is one of the owner's agents with the system prompt of its latest run.
type AgentPrompt struct {
	Name         string
	SystemPrompt string
}

// AgentPrompts lists the owner's agents with their prompts: what an upload that names
// no agent is matched against.
func (s *Store) AgentPrompts(ctx context.Context, owner Owner) ([]AgentPrompt, error) {
	rows, err := s.q.ListAgentPrompts(ctx, s.pool, owner.UserID())
	if err != nil {
		return nil, fmt.Errorf("store: agent prompts: %w", err)
	}
	out := make([]AgentPrompt, len(rows))
	for i, r := range rows {
		out[i] = AgentPrompt{Name: r.Name, SystemPrompt: r.SystemPrompt}
	}
	return out, nil
}

// Agent is one of the owner's agents as the pages list it.
type Agent struct {
	ID           int64
	Name         string
	CreatedAt    time.Time
	Runs         int
	LastRunAt    time.Time // its creation while it has no run
	ModelVersion *int32
	// FailureModel is the summary of the detector that scores the agent's runs now
	// (report.json's failure_model), nil without one.
	FailureModel json.RawMessage
}

// Agents lists the owner's agents, newest first.
func (s *Store) Agents(ctx context.Context, owner Owner) ([]Agent, error) {
	rows, err := s.q.ListAgents(ctx, s.pool, owner.UserID())
	if err != nil {
		return nil, fmt.Errorf("store: agents: %w", err)
	}
	out := make([]Agent, len(rows))
	for i, r := range rows {
		out[i] = Agent{ID: r.ID, Name: r.Name, CreatedAt: r.CreatedAt, Runs: int(r.Runs), LastRunAt: r.LastRunAt,
			ModelVersion: r.FailureModelVersion, FailureModel: r.FailureModel}
	}
	return out, nil
}

// AgentLabels is how many of an agent's kept, diagnosed conversations carry each outcome
// label, and how many runs they come from.
type AgentLabels struct {
	Failed, Succeeded, Runs int
}

// AgentLabelCounts counts the agent's labels.
func (s *Store) AgentLabelCounts(ctx context.Context, agentID int64, owner Owner) (AgentLabels, error) {
	row, err := s.q.CountAgentLabels(ctx, s.pool, dbsqlc.CountAgentLabelsParams{AgentID: agentID, OwnerUserID: owner.UserID()})
	if err != nil {
		return AgentLabels{}, fmt.Errorf("store: agent labels: %w", err)
	}
	return AgentLabels{Failed: int(row.Failed), Succeeded: int(row.Succeeded), Runs: int(row.Runs)}, nil
}

// Learning reports whether the agent's detector waits to be trained again or is being
// trained now.
func (s *Store) Learning(ctx context.Context, agentID int64, owner Owner) (bool, error) {
	rows, err := s.q.GetPendingLearning(ctx, s.pool, dbsqlc.GetPendingLearningParams{AgentID: agentID, OwnerUserID: owner.UserID()})
	if err != nil {
		return false, fmt.Errorf("store: learning: %w", err)
	}
	return len(rows) > 0, nil
}

// requestLearning asks inside tx for the agent's detector to be trained again and for
// rescore (tasks of the agent) to be scored with it: one learning task per agent waits
// at a time, which later requests join.
func (s *Store) requestLearning(ctx context.Context, tx pgx.Tx, owner Owner, agentID int64, rescore []uuid.UUID) error {
	if rescore == nil {
		rescore = []uuid.UUID{}
	}
	if _, err := s.q.RequestLearning(ctx, tx, dbsqlc.RequestLearningParams{
		OwnerUserID: owner.UserID(), AgentID: &agentID, Title: learningTitle, Rescore: rescore,
	}); err != nil {
		return fmt.Errorf("store: request learning: %w", err)
	}
	return nil
}

// learningTitle is the title of every learning task: the queue's own, never listed.
const learningTitle = "Learning from outcome labels"
