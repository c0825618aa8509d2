package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/detector"
	"github.com/checkup-dev/checkup/workers/risk"
)

// maxExamples is how many labelled conversations an agent's detector learns from at
// most: the latest runs' first. Learning curves of text classifiers flatten by then,
// and the bound keeps training's memory and time bounded however many labels an agent
// gathers (BENCHMARKS.md).
const maxExamples = 2000

// exampleKey names one labelled conversation of an agent.
type exampleKey struct {
	task uuid.UUID
	seq  int32
}

// learned is what training an agent's detector gave: the model and the out-of-fold
// score of each labelled conversation, or why there is no model (too few labels).
type learned struct {
	model     *detector.Model
	outOfFold map[exampleKey]float64
	runs      int
	tooFew    *detector.TooFewLabels
}

// trainAgent trains the agent's detector from its labelled, kept, diagnosed
// conversations, read a page at a time; no transaction is held meanwhile.
func trainAgent(ctx context.Context, pool *pgxpool.Pool, q *dbsqlc.Queries, agentID, owner int64) (learned, error) {
	w := &exampleWalk{q: q, db: pool, agent: agentID, owner: owner}
	model, oof, err := detector.Train(ctx, w.walk)
	var few *detector.TooFewLabels
	if errors.As(err, &few) {
		return learned{tooFew: few}, nil
	}
	if err != nil {
		return learned{}, fmt.Errorf("pipeline: learn: %w", err)
	}
	l := learned{model: model, outOfFold: make(map[exampleKey]float64, len(oof))}
	runs := map[uuid.UUID]bool{}
	for i, k := range w.keys {
		l.outOfFold[k] = oof[i]
		runs[k.task] = true
	}
	l.runs = len(runs)
	return l, nil
}

// exampleWalk hands the agent's labelled conversations to the detector, the latest
// runs first and each in upload order, at most maxExamples; keys lists them in that
// order. A conversation uploaded again (a re-run, or two exports that
// overlap) counts once, in its latest run: it is one example, not two.
type exampleWalk struct {
	q     *dbsqlc.Queries
	db    dbsqlc.DBTX
	agent int64
	owner int64
	keys  []exampleKey
}

func (w *exampleWalk) walk(ctx context.Context, yield func(detector.Example) error) error {
	w.keys = w.keys[:0]
	seen := map[string]bool{}
	runs, err := w.q.ListAgentRuns(ctx, w.db, dbsqlc.ListAgentRunsParams{AgentID: w.agent, OwnerUserID: w.owner})
	if err != nil {
		return fmt.Errorf("pipeline: learn: the agent's runs: %w", err)
	}
	for _, run := range runs {
		for after := int32(0); len(w.keys) < maxExamples; {
			rows, err := w.q.ListTrainingConversations(ctx, w.db, dbsqlc.ListTrainingConversationsParams{
				TaskID: run.ID, OwnerUserID: w.owner, AfterSeq: after, MaxRows: int32(min(pageSize, maxExamples-len(w.keys))),
			})
			if err != nil {
				return fmt.Errorf("pipeline: learn: labelled conversations: %w", err)
			}
			if len(rows) == 0 {
				break
			}
			after = rows[len(rows)-1].Seq
			rows = slices.DeleteFunc(rows, func(row dbsqlc.ListTrainingConversationsRow) bool {
				if len(row.ContentHash) == 0 {
					return false
				}
				dup := seen[string(row.ContentHash)]
				seen[string(row.ContentHash)] = true
				return dup
			})
			examples := make([]detector.Example, len(rows))
			err = forEachOnWorkers(len(rows), func(_, i int) error {
				row := rows[i]
				doc, conv, err := detectorDoc(row.Seq, row.Messages, row.RiskFlags, row.Categories, row.AnalyzerScore)
				if err != nil {
					return err
				}
				examples[i] = detector.Example{Doc: doc, Fingerprint: detector.TakeFingerprint(conv),
					Failed: row.Label != nil && *row.Label == string(transcript.LabelFailed)}
				return nil
			})
			if err != nil {
				return err
			}
			for i, e := range examples {
				w.keys = append(w.keys, exampleKey{run.ID, rows[i].Seq})
				if err := yield(e); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// detectorDoc is what the detector reads of a stored conversation: its terms, with the
// tool errors risk screening flagged, and its findings' categories and failure score.
func detectorDoc(seq int32, messages string, riskFlags []byte, categories []string, score float32) (detector.Doc, transcript.Conversation, error) {
	msgs, err := decodeMessages(messages)
	if err != nil {
		return detector.Doc{}, transcript.Conversation{}, fmt.Errorf("pipeline: conversation %d: messages: %w", seq, err)
	}
	var flags []risk.Flag
	if err := json.Unmarshal(riskFlags, &flags); err != nil {
		return detector.Doc{}, transcript.Conversation{}, fmt.Errorf("pipeline: conversation %d: risk flags: %w", seq, err)
	}
	conv := transcript.Conversation{Messages: msgs}
	return detector.Extract(conv, toolErrorTurns(flags), categories, float64(score)), conv, nil
}
