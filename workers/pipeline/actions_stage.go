package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers/cluster"
	"github.com/checkup-dev/checkup/workers/textmatch"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// briefExamples is how many findings of a cluster its Action is written from.
const briefExamples = 5

// briefDescriptions is how many distinct finding descriptions a brief carries.
const briefDescriptions = 3

// candidate is a cluster chosen for an Action, with its candidate index and what the
// analyzer is told about it.
type candidate struct {
	index   int
	cluster cluster.Cluster
	brief   analyzer.ClusterBrief
}

// title is the candidate's title as its findings keep it, or as written.
func (c candidate) title() locale.Text {
	if !c.brief.TitleText.IsZero() {
		return c.brief.TitleText
	}
	return locale.Lit(c.cluster.Title)
}

// actions writes an Action for every candidate cluster (step 6 of
// docs/architecture.md#pipeline-stages), ActionConcurrency calls at a time. Each
// candidate is a unit: its Action, or its failure, is stored with what it cost as one
// checkpoint, and the heartbeat is refreshed after it whatever happened: by the
// checkpoint's fenced transaction, or by a heartbeat when nothing could be stored. A
// failed call does not stop the others. When all have settled, the written Actions are
// ranked 1..N in candidate order and the failures become warnings in candidate order,
// in one transaction that also moves the task to the finishing stage. The only error a
// call can end the stage with is a heartbeat (or a checkpoint) that cannot be
// persisted. A resumed task skips the candidates already stored, and the whole stage
// once it was ranked.
func (r *run) actions(ctx context.Context, clusters []cluster.Cluster) error {
	if r.state.Stage.After(taskstate.Actions) {
		return nil
	}
	selected := cluster.SelectCandidates(clusters)
	stored, err := r.actionCheckpoints(ctx)
	if err != nil {
		return err
	}
	done := map[int]bool{}
	for _, s := range stored {
		i := int(s.CandidateIndex)
		if i >= len(selected) || selected[i].Idx != int(s.ClusterIdx) {
			return fmt.Errorf("pipeline: stored Action %d is for cluster %d, which is not candidate %d any more", i, s.ClusterIdx, i)
		}
		done[i] = true
	}
	var pending []candidate
	for i, c := range selected {
		if !done[i] {
			pending = append(pending, candidate{index: i, cluster: c})
		}
	}
	if err := r.briefs(ctx, pending); err != nil {
		return err
	}
	if err := r.lease.Progress(ctx, taskstate.Actions, len(done), len(selected)); err != nil {
		return err
	}
	err = parallel(r.p.opt.ActionConcurrency, sliceItems(pending), r.stopping(ctx),
		func(c candidate, _ func()) error { return r.writeAction(ctx, c) })
	if err != nil {
		return err
	}
	if err := r.between(ctx); err != nil {
		return err
	}
	return r.rankActions(ctx, selected)
}

func (r *run) actionCheckpoints(ctx context.Context) ([]dbsqlc.ListActionCheckpointsRow, error) {
	rows, err := r.q.ListActionCheckpoints(ctx, r.p.pool, dbsqlc.ListActionCheckpointsParams{TaskID: r.id, OwnerUserID: r.owner})
	if err != nil {
		return nil, fmt.Errorf("pipeline: read Actions: %w", err)
	}
	return rows, nil
}

// writeAction is one candidate's unit. A failed call, or an answer that stays
// invalid, is stored as the candidate's failure, but for a provider outage, which the
// unit waits out (throughOutage); only a context that ended (the task is stopping), an
// outage that lasted too long or a write that cannot be persisted returns an error.
// It keeps its place until its checkpoint is stored: no candidate starts after one
// whose checkpoint found the task canceled or could not be written.
func (r *run) writeAction(ctx context.Context, c candidate) (err error) {
	r.lease.Unit(fmt.Sprintf("cluster %d %q", c.cluster.Idx, c.cluster.Title))
	stored := false
	defer func() { r.unitEnded(ctx, stored, &err) }()
	res, aerr, stop := throughOutage(ctx, r.outage, string(taskstate.Actions), func() (analyzer.Result[analyzer.Action], error) {
		return r.p.analyzer.WriteAction(analyzer.WithLanguage(ctx, r.state.Language), c.brief)
	})
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if stop != nil {
		return stop
	}
	var a analyzer.Action
	if aerr == nil {
		a, aerr = NormalizeAction(res.Value)
	}
	row := dbsqlc.InsertTaskActionParams{
		CandidateIndex: int32(c.index), ClusterIdx: int32(c.cluster.Idx), Status: taskstate.ActionDone,
		TaskID: r.id, OwnerUserID: r.owner,
	}
	if aerr != nil {
		row.Status, row.Error = taskstate.ActionFailed, textmatch.ClipQuote(aerr.Error(), errorRunes)
		r.lease.Logger().Warn("Action failed", "stage", taskstate.Actions, "unit", c.cluster.Title, "err", aerr)
	} else if row.Action, err = json.Marshal(a); err != nil {
		return fmt.Errorf("pipeline: Action for cluster %d: %w", c.cluster.Idx, err)
	}
	cancel := false
	write := func() error {
		return r.inTx(ctx, fmt.Sprintf("Action for cluster %d", c.cluster.Idx), func(tx pgx.Tx) error {
			if err := r.q.InsertTaskAction(ctx, tx, row); err != nil {
				return err
			}
			if row.Status.Written() && res.Adjusted.Any() {
				if err := r.warn(ctx, tx, taskstate.Actions, clusterScope(c.cluster.Idx), locale.Msg("task_warning.action_adjusted",
					"Title", c.title(), "Changes", res.Adjusted.Text())); err != nil {
					return err
				}
			}
			if err := r.addUsage(ctx, tx, taskstate.Actions, res.Usage); err != nil {
				return err
			}
			requested, err := r.countUnit(ctx, tx, res.Usage, false)
			cancel = requested
			return err
		})
	}
	err = write()
	if why, refused := refusedValue(err); refused && row.Status.Written() {
		r.lease.Logger().Warn("Action failed: it cannot be stored", "stage", taskstate.Actions, "unit", c.cluster.Title, "err", err)
		row.Status, row.Action, row.Error = taskstate.ActionFailed, nil, "the database refused to store it ("+why+")"
		err = write()
	}
	if err != nil {
		return err
	}
	stored = true
	if cancel {
		return r.lease.Heartbeat(ctx)
	}
	return nil
}

// briefs sets what the analyzer is told about each candidate: its cluster's figures,
// a few distinct descriptions and its best evidence (verified quotes first), read for
// all of them in one query.
func (r *run) briefs(ctx context.Context, cands []candidate) error {
	if len(cands) == 0 {
		return nil
	}
	idxs := make([]int32, len(cands))
	byCluster := make(map[int]*analyzer.ClusterBrief, len(cands))
	for i := range cands {
		c := cands[i].cluster
		idxs[i] = int32(c.Idx)
		cands[i].brief = analyzer.ClusterBrief{
			Type: c.Type, Category: c.Category, Title: c.Title, Descriptions: []string{}, Examples: []analyzer.Example{},
			ConversationCount: c.ConversationCount, AnalysedCount: r.analysed,
			Severity: c.Severity, Confidence: c.Confidence, PriorityScore: c.PriorityScore,
		}
		byCluster[c.Idx] = &cands[i].brief
	}
	rows, err := r.q.ListClusterExamples(ctx, r.p.pool, dbsqlc.ListClusterExamplesParams{
		TaskID: r.id, OwnerUserID: r.owner, ClusterIdxs: idxs, MaxRows: briefExamples,
	})
	if err != nil {
		return fmt.Errorf("pipeline: examples of the clusters: %w", err)
	}
	for _, row := range rows {
		b := byCluster[int(row.ClusterIdx)]
		var words analyzer.Words
		if len(row.Text) > 0 {
			if err := json.Unmarshal(row.Text, &words); err != nil {
				return fmt.Errorf("pipeline: words of finding %d/%d: %w", row.ConversationSeq, row.Idx, err)
			}
		}
		if row.Title == b.Title && b.TitleText.IsZero() {
			b.TitleText = words.Title
		}
		if row.Description != "" && !slices.Contains(b.Descriptions, row.Description) && len(b.Descriptions) < briefDescriptions {
			b.Descriptions = append(b.Descriptions, row.Description)
			b.DescriptionTexts = append(b.DescriptionTexts, words.Description)
		}
		var ev []analyzer.Evidence
		if err := json.Unmarshal(row.Evidence, &ev); err != nil {
			return fmt.Errorf("pipeline: evidence of finding %d/%d: %w", row.ConversationSeq, row.Idx, err)
		}
		pick, ok := analyzer.BestEvidence(ev)
		if !ok {
			continue
		}
		b.Examples = append(b.Examples, analyzer.Example{
			ConversationID: row.ExternalID, Seq: int(row.ConversationSeq), Turn: pick.Turn, Quote: pick.Quote, FindingTitle: row.Title,
		})
	}
	for i := range cands {
		cands[i].brief.Examples = distinctQuotesFirst(cands[i].brief.Examples)
	}
	return nil
}

// distinctQuotesFirst moves the examples that repeat an earlier example's quote to the
// end, keeping the order otherwise: reruns of one case quote the same words and tell
// the writer nothing new.
func distinctQuotesFirst(examples []analyzer.Example) []analyzer.Example {
	fresh, repeats, seen := []analyzer.Example{}, []analyzer.Example(nil), map[string]bool{}
	for _, ex := range examples {
		if seen[ex.Quote] {
			repeats = append(repeats, ex)
		} else {
			seen[ex.Quote] = true
			fresh = append(fresh, ex)
		}
	}
	return append(fresh, repeats...)
}

// rankActions ranks the written Actions and turns the failures into warnings, both in
// candidate order, in one transaction that also moves the task to finishing.
func (r *run) rankActions(ctx context.Context, selected []cluster.Cluster) error {
	stored, err := r.actionCheckpoints(ctx)
	if err != nil {
		return err
	}
	ranked := cluster.AssignRanks(cluster.ResultsFromRows(stored))
	params := dbsqlc.SetTaskActionRanksParams{TaskID: r.id, OwnerUserID: r.owner}
	for _, a := range ranked {
		if a.Written {
			params.CandidateIndexes = append(params.CandidateIndexes, int32(a.CandidateIndex))
			params.Ranks = append(params.Ranks, int32(a.Rank))
		}
	}
	return r.inTx(ctx, "Action ranks", func(tx pgx.Tx) error {
		if _, err := r.q.ClearTaskActionRanks(ctx, tx, dbsqlc.ClearTaskActionRanksParams{TaskID: r.id, OwnerUserID: r.owner}); err != nil {
			return err
		}
		if _, err := r.q.SetTaskActionRanks(ctx, tx, params); err != nil {
			return err
		}
		for _, a := range ranked {
			if a.Written {
				continue
			}
			c := selected[a.CandidateIndex]
			if err := r.warn(ctx, tx, taskstate.Actions, clusterScope(c.Idx), locale.Msg("task_warning.action_not_written",
				"Type", analyzer.FindingType(c.Type).Badge(), "Title", c.Title, "Conversations", strconv.Itoa(c.ConversationCount),
				"Findings", strconv.Itoa(c.FindingCount), "Error", a.Error)); err != nil {
				return err
			}
		}
		return r.setStage(ctx, tx, taskstate.Finishing, 0, 1)
	})
}
