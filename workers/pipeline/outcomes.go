package pipeline

import (
	"context"

	"encoding/json"
	"fmt"
	"github.com/google/uuid"
	"math"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/detector"
	"github.com/checkup-dev/checkup/workers/drivers"
	"github.com/checkup-dev/checkup/workers/risk"
	"github.com/checkup-dev/checkup/workers/stats"
)

// analysedOutcomes are the outcome labels and failure scores of the diagnosed
// conversations.
type analysedOutcomes struct {
	labels map[int]transcript.Label
	scores map[int]float64
	sizes  map[int]detector.Counts
}

func (r *run) outcomes(ctx context.Context) (analysedOutcomes, error) {
	return readOutcomes(ctx, r.q, r.p.pool, r.id, r.owner)
}

// readOutcomes reads the outcome labels, failure scores and sizes of a task's
// diagnosed conversations.
func readOutcomes(ctx context.Context, q *dbsqlc.Queries, db dbsqlc.DBTX, task uuid.UUID, owner int64) (analysedOutcomes, error) {
	rows, err := q.ListConversationOutcomes(ctx, db, dbsqlc.ListConversationOutcomesParams{TaskID: task, OwnerUserID: owner})
	if err != nil {
		return analysedOutcomes{}, fmt.Errorf("pipeline: read outcome labels: %w", err)
	}
	o := analysedOutcomes{labels: make(map[int]transcript.Label, len(rows)), scores: make(map[int]float64, len(rows)),
		sizes: make(map[int]detector.Counts, len(rows))}
	for _, row := range rows {
		o.sizes[int(row.Seq)] = detector.Counts{Messages: int(row.Turns), UserTurns: int(row.UserTurns), ToolCalls: int(row.ToolCalls)}
		l := transcript.LabelNone
		if row.Label != nil {
			l = transcript.Label(*row.Label)
		}
		o.labels[int(row.Seq)] = l
		if row.FailureScore != nil {
			o.scores[int(row.Seq)] = float64(*row.FailureScore)
		}
	}
	return o, nil
}

// labelled reports whether any diagnosed conversation carries a label.
func (o analysedOutcomes) labelled() bool {
	for _, l := range o.labels {
		if l != transcript.LabelNone {
			return true
		}
	}
	return false
}

// LabelCheck is stored in analysis_task.label_check: how well the diagnosis agrees with
// the outcome labels the upload carried, for any analyzer and model. A conversation is
// flagged when its failure score estimates it failed (analyzer.FailedThreshold).
type LabelCheck struct {
	Labelled       int      `json:"labelled"`
	Failed         int      `json:"failed"`
	Succeeded      int      `json:"succeeded"`
	AUROC          *float64 `json:"auroc"`           // of failure_score against failure; nil when one class is empty
	FailedFlagged  *float64 `json:"failed_flagged"`  // share of failed conversations flagged
	SucceededClean *float64 `json:"succeeded_clean"` // share of successful ones not flagged
	// Baselines are what counting alone scores against the same labels: messages,
	// user turns and tool calls, more meaning failed. Empty when AUROC is nil.
	Baselines []detector.Baseline `json:"baselines"`
}

// check compares the failure scores with the labels.
func (o analysedOutcomes) check() LabelCheck {
	var c LabelCheck
	var scores []float64
	var failed []bool
	var sizes []detector.Counts
	flagged, clean := 0, 0
	for seq, l := range o.labels {
		if l == transcript.LabelNone {
			continue
		}
		s := o.scores[seq]
		fail := l == transcript.LabelFailed
		scores, failed, sizes = append(scores, s), append(failed, fail), append(sizes, o.sizes[seq])
		c.Labelled++
		switch {
		case fail:
			c.Failed++
			if s >= analyzer.FailedThreshold {
				flagged++
			}
		case s < analyzer.FailedThreshold:
			c.Succeeded++
			clean++
		default:
			c.Succeeded++
		}
	}
	share := func(n, of int) *float64 {
		if of == 0 {
			return nil
		}
		v := math.Round(1e4*float64(n)/float64(of)) / 1e4
		return &v
	}
	c.FailedFlagged, c.SucceededClean = share(flagged, c.Failed), share(clean, c.Succeeded)
	c.Baselines = []detector.Baseline{}
	if c.Failed > 0 && c.Succeeded > 0 {
		v := math.Round(1e4*stats.AUROC(scores, failed)) / 1e4
		c.AUROC = &v
		c.Baselines = detector.Baselines(sizes, failed)
	}
	return c
}

// drivers searches the labelled, diagnosed conversations for failure drivers — with
// what diagnosis counted as it stored them, or else reading them back — then, when a
// driver found needs it, finds all the conversations of each (drivers.Members): the
// search holds counts only. They come from the log of what diagnosis counted, or else
// from reading the conversations again.
func (r *run) drivers(ctx context.Context) ([]drivers.Driver, error) {
	search := r.search
	if !r.searched {
		search = drivers.New()
		if err := r.eachLabelled(ctx, drivers.Extract, search.Add); err != nil {
			return nil, err
		}
	}
	members := drivers.NewMembers(search.Drivers())
	if !members.Needed() {
		return members.Drivers(), nil
	}
	if r.searched && r.features != nil {
		err := r.features.FillMembers(members)
		r.closeFeatureLog()
		if err == nil {
			return members.Drivers(), nil
		}
		r.lease.Logger().Warn("failure drivers: the feature log could not be read; reading the conversations again", "err", err)
	}
	if err := r.eachLabelled(ctx, members.Extract, members.Add); err != nil {
		return nil, err
	}
	return members.Drivers(), nil
}

// newFeatureLog opens the log of what the search counts; without one (no temporary
// file) the drivers' conversations are read again instead.
func (r *run) newFeatureLog() *drivers.FeatureLog {
	l, err := drivers.NewFeatureLog("")
	if err != nil {
		r.lease.Logger().Warn("failure drivers: no feature log; their conversations will be read again", "err", err)
		return nil
	}
	return l
}

// eachLabelled reads every labelled, diagnosed conversation a page at a time, in upload
// order, and hands the features extract finds to add in that order. extract runs on
// pageWorkers goroutines while the next page is read, so it must be safe for
// concurrent use; add runs on the caller's.
func (r *run) eachLabelled(ctx context.Context, extract extractFunc, add func(drivers.Conversation)) error {
	read := func(ctx context.Context, after, through int32) ([]dbsqlc.ListLabelledConversationsAfterRow, error) {
		rows, err := r.q.ListLabelledConversationsAfter(ctx, r.p.pool, dbsqlc.ListLabelledConversationsAfterParams{
			TaskID: r.id, OwnerUserID: r.owner, AfterSeq: after, ThroughSeq: through,
		})
		if err != nil {
			return nil, fmt.Errorf("pipeline: read labelled conversations: %w", err)
		}
		return rows, nil
	}
	for rows, err := range readAhead(ctx, r.lease.Task.ConversationCount, read) {
		if err != nil {
			return err
		}
		found := make([]drivers.Conversation, len(rows))
		err := forEachOnWorkers(len(rows), func(_, i int) error {
			row := rows[i]
			msgs, err := decodeMessages(row.Messages)
			if err != nil {
				return fmt.Errorf("pipeline: conversation %d: messages: %w", row.Seq, err)
			}
			var flags []risk.Flag
			if err := json.Unmarshal(row.RiskFlags, &flags); err != nil {
				return fmt.Errorf("pipeline: conversation %d: risk flags: %w", row.Seq, err)
			}
			failed := row.Label != nil && *row.Label == string(transcript.LabelFailed)
			found[i] = extract(int(row.Seq), failed, transcript.Conversation{Messages: msgs}, toolErrorTurns(flags), row.Categories)
			return nil
		})
		if err != nil {
			return err
		}
		for _, c := range found {
			add(c)
		}
	}
	return nil
}

// extractFunc lists the features of one labelled conversation (drivers.Extract).
type extractFunc func(seq int, failed bool, conv transcript.Conversation, errorTurns []int, categories []string) drivers.Conversation

// driverRow is one element of the JSON array InsertTaskDrivers reads.
type driverRow struct {
	Idx int `json:"idx"`
	drivers.Driver
	// A word driver's turn and quote in its first example conversation (drivers.Quote).
	ExampleTurn  *int   `json:"example_turn,omitempty"`
	ExampleQuote string `json:"example_quote,omitempty"`
}

// driverRows are the drivers to store, each word driver with where its first example
// conversation writes it: one read of that conversation per word driver.
func (r *run) driverRows(ctx context.Context, found []drivers.Driver) ([]driverRow, error) {
	rows := make([]driverRow, len(found))
	for i, d := range found {
		if d.Conversations == nil {
			d.Conversations = []int{}
		}
		rows[i] = driverRow{Idx: i, Driver: d}
		if (d.Kind != drivers.KindUserWords && d.Kind != drivers.KindAgentWords) || len(d.Examples) == 0 {
			continue
		}
		raw, err := r.q.GetConversationMessages(ctx, r.p.pool, dbsqlc.GetConversationMessagesParams{
			TaskID: r.id, OwnerUserID: r.owner, Seq: int32(d.Examples[0]),
		})
		if err != nil {
			return nil, fmt.Errorf("pipeline: driver %d's example: %w", i, err)
		}
		msgs, err := decodeMessages(raw)
		if err != nil {
			return nil, fmt.Errorf("pipeline: driver %d's example: messages: %w", i, err)
		}
		if turn, quote, ok := drivers.Quote(d.Feature, transcript.Conversation{Messages: msgs}); ok {
			rows[i].ExampleTurn, rows[i].ExampleQuote = &turn, quote
		}
	}
	return rows, nil
}
