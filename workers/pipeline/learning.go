package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/cluster"
)

// learningConfig is what a learning task's config names: the finished runs of the
// agent whose labels changed, to score again once the detector has learned from them.
type learningConfig struct {
	Rescore []uuid.UUID `json:"rescore"`
}

// runLearning runs a learning task: it trains the agent's detector again from every
// labelled run (or removes it when the labels fell below the minimum), then scores
// each run named in its config again, each one a checkpoint of its own. The task is
// the queue's unit of work like a diagnosis: fenced by its lease, resumed when taken
// over (training is deterministic, and scoring a run twice writes the same).
func (p *Pipeline) runLearning(ctx context.Context, lease *workers.Lease) (workers.Outcome, error) {
	var cfg learningConfig
	if err := json.Unmarshal(lease.Task.Config, &cfg); err != nil {
		return workers.Outcome{}, fmt.Errorf("pipeline: learning task config: %w", err)
	}
	owner, agentID := lease.Task.Owner.UserID(), lease.Task.AgentID
	if err := lease.Progress(ctx, taskstate.Learning, 0, 1+len(cfg.Rescore)); err != nil {
		return workers.Outcome{}, err
	}
	l, err := trainAgent(ctx, p.pool, p.q, agentID, owner)
	if err != nil {
		return workers.Outcome{}, err
	}
	summary := []byte(nil)
	if err := lease.InTx(ctx, func(tx pgx.Tx) error {
		summary, err = storeLearned(ctx, p.q, tx, agentID, owner, lease.Task.ID, l)
		return err
	}); err != nil {
		return workers.Outcome{}, fmt.Errorf("pipeline: store the detector: %w", err)
	}
	for i, task := range cfg.Rescore {
		if lease.Draining() {
			return workers.Outcome{}, workers.ErrDraining
		}
		if err := p.rescore(ctx, lease, task, l, summary); err != nil {
			return workers.Outcome{}, err
		}
		if err := lease.Progress(ctx, taskstate.Learning, 2+i, 1+len(cfg.Rescore)); err != nil {
			return workers.Outcome{}, err
		}
	}
	return workers.Outcome{Status: taskstate.Completed}, nil
}

// rescore scores one finished run of the agent again with what learning gave (the
// analyzer's own scores when there is no detector any more), then derives again what
// reads the scores and labels: the label check, the clusters' outcome split and
// estimated failures, and the ranks of its Actions. A run that is not finished is left
// to its own learning stage; one deleted meanwhile is skipped.
func (p *Pipeline) rescore(ctx context.Context, lease *workers.Lease, task uuid.UUID, l learned, summary []byte) error {
	owner := lease.Task.Owner.UserID()
	var scores []scored
	if l.model != nil {
		var err error
		if scores, err = scoreConversations(ctx, p.q, p.pool, task, owner, l.model, l.outOfFold, true); err != nil {
			return err
		}
	}
	return lease.InTx(ctx, func(tx pgx.Tx) error {
		locked, err := p.q.LockTaskForReview(ctx, tx, dbsqlc.LockTaskForReviewParams{ID: task, OwnerUserID: owner})
		if errors.Is(err, pgx.ErrNoRows) || err == nil && !locked.Status.Concluded() {
			return nil
		}
		if err != nil {
			return fmt.Errorf("pipeline: rescore %s: %w", task, err)
		}
		if l.model != nil {
			for _, page := range pages(scores) {
				if err := writeScores(ctx, p.q, tx, task, owner, page); err != nil {
					return err
				}
			}
		} else if _, err := p.q.RestoreAnalyzerScores(ctx, tx, dbsqlc.RestoreAnalyzerScoresParams{TaskID: task, OwnerUserID: owner}); err != nil {
			return fmt.Errorf("pipeline: rescore %s: %w", task, err)
		}
		return p.deriveOutcomes(ctx, tx, task, owner, l.model != nil, summary)
	})
}

// deriveOutcomes derives inside tx, from the labels and failure scores stored now,
// what a finished run shows of them: its label check, its clusters' outcome split and
// estimated failures (scored says a detector scored it), and its Actions' ranks.
func (p *Pipeline) deriveOutcomes(ctx context.Context, tx pgx.Tx, task uuid.UUID, owner int64, scored bool, summary []byte) error {
	outcomes, err := readOutcomes(ctx, p.q, tx, task, owner)
	if err != nil {
		return err
	}
	var check []byte
	if outcomes.labelled() {
		if check, err = json.Marshal(outcomes.check()); err != nil {
			return fmt.Errorf("pipeline: label check: %w", err)
		}
	}
	if _, err := p.q.SetRescoredTask(ctx, tx, dbsqlc.SetRescoredTaskParams{
		LabelCheck: check, FailureModel: summary, ID: task, OwnerUserID: owner,
	}); err != nil {
		return fmt.Errorf("pipeline: rescore %s: %w", task, err)
	}
	rows, err := p.q.ListTaskClusters(ctx, tx, dbsqlc.ListTaskClustersParams{TaskID: task, OwnerUserID: owner})
	if err != nil {
		return fmt.Errorf("pipeline: rescore %s: clusters: %w", task, err)
	}
	clusters, err := cluster.FromRows(rows)
	if err != nil {
		return err
	}
	members, err := p.q.ListClusterConversations(ctx, tx, dbsqlc.ListClusterConversationsParams{TaskID: task, OwnerUserID: owner})
	if err != nil {
		return fmt.Errorf("pipeline: rescore %s: cluster members: %w", task, err)
	}
	for _, m := range members {
		seqs := make([]int, len(m.ConversationSeqs))
		for i, s := range m.ConversationSeqs {
			seqs[i] = int(s)
		}
		clusters[m.Idx].ConversationSeqs = seqs
	}
	for i := range clusters {
		clusters[i].Outcomes, clusters[i].Estimated = nil, nil
	}
	cluster.SplitByOutcome(clusters, outcomes.labels)
	if scored {
		cluster.EstimateFailures(clusters, outcomes.labels, outcomes.scores)
	}
	raw, err := json.Marshal(clusterRows(clusters, nil))
	if err != nil {
		return fmt.Errorf("pipeline: rescore %s: clusters: %w", task, err)
	}
	if _, err := p.q.SetClusterOutcomes(ctx, tx, dbsqlc.SetClusterOutcomesParams{Clusters: raw, TaskID: task, OwnerUserID: owner}); err != nil {
		return fmt.Errorf("pipeline: rescore %s: clusters: %w", task, err)
	}
	return p.rerankActions(ctx, tx, task, owner, clusters)
}

// rerankActions ranks the run's stored Actions again by the clusters as they are now,
// with the selection the Actions stage ranks them by (cluster.Rerank).
func (p *Pipeline) rerankActions(ctx context.Context, tx pgx.Tx, task uuid.UUID, owner int64, clusters []cluster.Cluster) error {
	actions, err := p.q.ListActionCheckpoints(ctx, tx, dbsqlc.ListActionCheckpointsParams{TaskID: task, OwnerUserID: owner})
	if err != nil {
		return fmt.Errorf("pipeline: rescore %s: Actions: %w", task, err)
	}
	stored := cluster.ResultsFromRows(actions)
	if _, err := p.q.ClearTaskActionRanks(ctx, tx, dbsqlc.ClearTaskActionRanksParams{TaskID: task, OwnerUserID: owner}); err != nil {
		return fmt.Errorf("pipeline: rescore %s: clear ranks: %w", task, err)
	}
	ranks := dbsqlc.SetTaskActionRanksParams{TaskID: task, OwnerUserID: owner}
	for _, a := range cluster.Rerank(clusters, stored) {
		if a.Rank > 0 {
			ranks.CandidateIndexes = append(ranks.CandidateIndexes, int32(a.CandidateIndex))
			ranks.Ranks = append(ranks.Ranks, int32(a.Rank))
		}
	}
	if _, err := p.q.SetTaskActionRanks(ctx, tx, ranks); err != nil {
		return fmt.Errorf("pipeline: rescore %s: ranks: %w", task, err)
	}
	return nil
}
