package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers/detector"
)

// keptModels is how many of an agent's latest detectors are kept; older ones score
// nothing any more (each run keeps the summary of the one that scored it).
const keptModels = 3

// learn is the stage between diagnosis and clustering. A run that carries outcome
// labels trains its agent's detector again, from every labelled run of the agent; then,
// whenever the agent has a detector, it scores this run's conversations: a labelled
// conversation gets its out-of-fold score (from a model that did not see it), any
// other the detector's. The clusters and Actions that follow read those scores. The
// new model, the scores and the stage's end are one checkpoint.
func (r *run) learn(ctx context.Context) error {
	if r.lease.Task.AgentID == 0 || r.learned() {
		r.scored = r.state.FailureModel != nil
		return nil
	}
	if err := r.lease.Progress(ctx, taskstate.Learning, 0, 1); err != nil {
		return err
	}
	outcomes, err := r.outcomes(ctx)
	if err != nil {
		return err
	}
	var l learned
	if outcomes.labelled() {
		if l, err = trainAgent(ctx, r.p.pool, r.q, r.lease.Task.AgentID, r.owner); err != nil {
			return err
		}
	}
	model, summary := l.model, []byte(nil)
	if model == nil && l.tooFew == nil {
		if model, summary, err = currentModel(ctx, r.q, r.p.pool, r.lease.Task.AgentID, r.owner); err != nil {
			return err
		}
	}
	if model != nil {
		scores, err := scoreConversations(ctx, r.q, r.p.pool, r.id, r.owner, model, l.outOfFold, true)
		if err != nil {
			return err
		}
		for _, page := range pages(scores) {
			if err := r.inTx(ctx, "failure scores", func(tx pgx.Tx) error { return writeScores(ctx, r.q, tx, r.id, r.owner, page) }); err != nil {
				return err
			}
		}
	}
	return r.inTx(ctx, "failure detector", func(tx pgx.Tx) error {
		if l.model != nil || l.tooFew != nil {
			if summary, err = storeLearned(ctx, r.q, tx, r.lease.Task.AgentID, r.owner, r.id, l); err != nil {
				return err
			}
		}
		r.scored = model != nil
		if model != nil {
			if _, err := r.q.SetTaskFailureModel(ctx, tx, dbsqlc.SetTaskFailureModelParams{FailureModel: summary, ID: r.id, OwnerUserID: r.owner}); err != nil {
				return err
			}
		}
		return r.setStage(ctx, tx, taskstate.Learning, 1, 1)
	})
}

// learned reports whether an earlier attempt finished the learning stage.
func (r *run) learned() bool {
	s := r.state
	return s.Stage.After(taskstate.Learning) || (s.Stage == taskstate.Learning && s.ProgressDone > 0)
}

// storeLearned stores inside tx what training gave: a new version of the agent's
// detector, which then scores its runs; or, when its labels fell below the minimum,
// no detector. It returns the new detector's summary, nil when there is none.
func storeLearned(ctx context.Context, q *dbsqlc.Queries, tx pgx.Tx, agentID, owner int64, by uuid.UUID, l learned) ([]byte, error) {
	switch {
	case l.model != nil:
		version, err := q.NextFailureModelVersion(ctx, tx, dbsqlc.NextFailureModelVersionParams{AgentID: agentID, OwnerUserID: owner})
		if err != nil {
			return nil, fmt.Errorf("pipeline: learn: version: %w", err)
		}
		agent, err := q.GetAgent(ctx, tx, dbsqlc.GetAgentParams{ID: agentID, OwnerUserID: owner})
		if err != nil {
			return nil, fmt.Errorf("pipeline: learn: agent: %w", err)
		}
		summary, err := json.Marshal(l.model.Summarise(agent.Name, int(version), l.runs))
		if err != nil {
			return nil, fmt.Errorf("pipeline: learn: summary: %w", err)
		}
		model, err := json.Marshal(l.model)
		if err != nil {
			return nil, fmt.Errorf("pipeline: learn: model: %w", err)
		}
		if _, err := q.InsertFailureModel(ctx, tx, dbsqlc.InsertFailureModelParams{
			AgentID: agentID, OwnerUserID: owner, Version: version, TrainedBy: &by, Summary: summary, Model: model,
		}); err != nil {
			return nil, fmt.Errorf("pipeline: learn: store the model: %w", err)
		}
		if _, err := q.PruneFailureModels(ctx, tx, dbsqlc.PruneFailureModelsParams{AgentID: agentID, OwnerUserID: owner, Keep: keptModels}); err != nil {
			return nil, fmt.Errorf("pipeline: learn: prune models: %w", err)
		}
		return summary, nil
	case l.tooFew != nil:
		if _, err := q.ClearFailureModel(ctx, tx, dbsqlc.ClearFailureModelParams{AgentID: agentID, OwnerUserID: owner}); err != nil {
			return nil, fmt.Errorf("pipeline: learn: clear the model: %w", err)
		}
	}
	return nil, nil
}

// currentModel is the detector that scores the agent's runs now, with its summary; nil
// when it has none.
func currentModel(ctx context.Context, q *dbsqlc.Queries, db dbsqlc.DBTX, agentID, owner int64) (*detector.Model, []byte, error) {
	row, err := q.GetCurrentFailureModel(ctx, db, dbsqlc.GetCurrentFailureModelParams{AgentID: agentID, OwnerUserID: owner})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("pipeline: learn: the agent's detector: %w", err)
	}
	m, err := detector.Decode(row.Model)
	return m, row.Summary, err
}

// scored is one conversation's failure score, as SetFailureScores reads it.
type scored struct {
	Seq   int32   `json:"seq"`
	Score float64 `json:"score"`
}

// scoreConversations is m's failure score of each of the task's kept, diagnosed
// conversations (with diagnosed false, of every kept one), in upload order; a
// conversation m learned from gets its out-of-fold score instead. It reads, a page at
// a time, and holds no transaction.
func scoreConversations(ctx context.Context, q *dbsqlc.Queries, pool *pgxpool.Pool, task uuid.UUID, owner int64,
	m *detector.Model, outOfFold map[exampleKey]float64, diagnosed bool) ([]scored, error) {
	known := []int32{}
	for k := range outOfFold {
		if k.task == task {
			known = append(known, k.seq)
		}
	}
	var out []scored
	for after := int32(0); ; {
		rows, err := q.ListScoringConversationsAfter(ctx, pool, dbsqlc.ListScoringConversationsAfterParams{
			TaskID: task, OwnerUserID: owner, AfterSeq: after, MaxRows: pageSize, Diagnosed: diagnosed, Scored: known,
		})
		if err != nil {
			return nil, fmt.Errorf("pipeline: score: read conversations: %w", err)
		}
		if len(rows) == 0 {
			return out, nil
		}
		page := make([]scored, len(rows))
		err = forEachOnWorkers(len(rows), func(_, i int) error {
			row := rows[i]
			page[i].Seq = row.Seq
			if s, ok := outOfFold[exampleKey{task, row.Seq}]; ok {
				page[i].Score = roundScore(s)
				return nil
			}
			doc, _, err := detectorDoc(row.Seq, row.Messages, row.RiskFlags, row.Categories, row.AnalyzerScore)
			if err != nil {
				return err
			}
			page[i].Score = roundScore(m.Score(doc))
			return nil
		})
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		after = rows[len(rows)-1].Seq
	}
}

// writeScores stores one page of failure scores inside tx.
func writeScores(ctx context.Context, q *dbsqlc.Queries, tx pgx.Tx, task uuid.UUID, owner int64, page []scored) error {
	raw, err := json.Marshal(page)
	if err != nil {
		return fmt.Errorf("pipeline: score: %w", err)
	}
	if _, err := q.SetFailureScores(ctx, tx, dbsqlc.SetFailureScoresParams{Scores: raw, TaskID: task, OwnerUserID: owner}); err != nil {
		return fmt.Errorf("pipeline: score: store: %w", err)
	}
	return nil
}

// pages cuts scores into pages of pageSize.
func pages(scores []scored) [][]scored {
	var out [][]scored
	for len(scores) > 0 {
		n := min(pageSize, len(scores))
		out = append(out, scores[:n])
		scores = scores[n:]
	}
	return out
}

// roundScore keeps three decimals of a failure score, as the analyzers write them.
func roundScore(s float64) float64 { return float64(int(s*1000+0.5)) / 1000 }
