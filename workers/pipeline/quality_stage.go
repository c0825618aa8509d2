package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/quality"
	"github.com/checkup-dev/checkup/workers/risk"
)

// quality runs the quality checks over every conversation in upload order (step 1 of
// docs/architecture.md#pipeline-stages) and screens each kept one for risks (step 2) in
// the same pass, storing its search document too, so every transcript is read and
// decoded once for all three. The verdicts, flags and documents of each pageSize
// conversations are stored in one fenced transaction while the next ones are checked,
// the last ones with the funnel on the task. The kept conversations stay decoded for
// diagnosis while they fit in keptBudget. A task whose funnel is stored already (an
// earlier attempt got past this pass) reuses it; all three are deterministic, so an
// attempt that stopped halfway simply redoes them.
func (r *run) quality(ctx context.Context) (quality.Funnel, error) {
	f, err := r.checkQuality(ctx)
	r.funnel = f
	return f, err
}

func (r *run) checkQuality(ctx context.Context) (quality.Funnel, error) {
	if len(r.state.Funnel) > 0 && string(r.state.Funnel) != "null" {
		var f quality.Funnel
		if err := json.Unmarshal(r.state.Funnel, &f); err != nil {
			return quality.Funnel{}, fmt.Errorf("pipeline: stored funnel: %w", err)
		}
		return f, nil
	}
	total := int(r.lease.Task.ConversationCount)
	if err := r.lease.Progress(ctx, taskstate.Quality, 0, total); err != nil {
		return quality.Funnel{}, err
	}
	if r.refreshesStatistics() {
		r.maintain(ctx, taskstate.Quality, statisticsNotRefreshed, r.q.MaintenanceAnalyzeConversations)
	}
	checker := quality.NewChecker(quality.Options{}) // the defaults, as the upload's population preview checks
	r.kept = &keptConversations{bySeq: map[int32]storedConversation{}}
	// Without a cap on diagnosis every kept conversation is diagnosed: the pass records
	// that with the verdicts, instead of the risk stage writing every row again.
	r.selectedKept = r.p.opt.MaxDiagnosed == 0
	stored := startWriteBehind(func(b qualityBatch) error { return r.storeQuality(ctx, b) })
	defer func() { _ = stored.wait() }() // on an early return; the pass's end returns its error
	w := r.newQualityWrites()
	var labels labelCounts
	done := 0
	for page, err := range r.screenedPages(ctx, checker) {
		if err != nil {
			return quality.Funnel{}, err
		}
		for _, c := range page {
			v := checker.Decide(c.examined)
			flags := "[]"
			if v.Status == quality.Kept {
				labels.add(c.label)
				r.kept.add(c.storedConversation)
				if c.flags == nil {
					c.flags = []risk.Flag{} // stored as [], as for a conversation not kept
				}
				raw, err := json.Marshal(c.flags)
				if err != nil {
					return quality.Funnel{}, fmt.Errorf("pipeline: risk flags: %w", err)
				}
				flags = string(raw)
			}
			if err := w.next(c.seq); err != nil {
				return quality.Funnel{}, err
			}
			w.verdicts.QcStatuses = append(w.verdicts.QcStatuses, string(v.Status))
			w.verdicts.QcReasons = append(w.verdicts.QcReasons, v.Reason)
			w.verdicts.ContentHashes = append(w.verdicts.ContentHashes, v.ContentHash)
			w.verdicts.Flags = append(w.verdicts.Flags, flags)
			if v.Status == quality.Kept {
				w.search.Seqs = append(w.search.Seqs, c.seq)
				w.search.Terms = append(w.search.Terms, strings.Join(c.terms, " "))
			}
		}
		done += len(page)
		if len(w.verdicts.QcStatuses) >= pageSize {
			if err := stored.put(qualityBatch{writes: w, done: done, total: max(total, done)}); err != nil {
				return quality.Funnel{}, err
			}
			w = r.newQualityWrites()
		}
	}
	funnel := checker.Funnel()
	raw, err := json.Marshal(funnel)
	if err != nil {
		return quality.Funnel{}, fmt.Errorf("pipeline: funnel: %w", err)
	}
	last := qualityBatch{writes: w, done: done, total: max(total, done), population: &populationWrite{funnel: raw, labels: labels}}
	if err := stored.put(last); err != nil {
		return quality.Funnel{}, err
	}
	if err := stored.wait(); err != nil {
		return funnel, err
	}
	// Every search reads what its words' index still holds in its pending list, and
	// is planned away from the index while it holds much: the pass merges its
	// partition's list, whatever the task's size. A pass cancelled or resumed after its
	// last write leaves its documents to autovacuum, or to the next pass to write in
	// the same partition.
	r.maintainBehind(ctx, taskstate.Quality, searchPendingNotMerged, r.mergeSearchPending)
	return funnel, nil
}

// labelCounts counts the kept conversations by outcome label.
type labelCounts struct{ failed, succeeded, unlabelled int32 }

func (l *labelCounts) add(label transcript.Label) {
	switch label {
	case transcript.LabelFailed:
		l.failed++
	case transcript.LabelSucceeded:
		l.succeeded++
	default:
		l.unlabelled++
	}
}

// qualityWrites are the verdicts with risk flags, and the search documents, of the
// conversations checked since the last store.
type qualityWrites struct {
	verdicts dbsqlc.SetConversationQualityParams
	search   dbsqlc.InsertConversationSearchParams
}

// next checks that seq is the next of the batch: the verdicts are stored by position
// from the batch's first seq (SetConversationQuality), and the pass reads every seq in
// order.
func (w *qualityWrites) next(seq int32) error {
	n := int32(len(w.verdicts.QcStatuses))
	if n == 0 {
		w.verdicts.FirstSeq = seq
	} else if seq != w.verdicts.FirstSeq+n {
		return fmt.Errorf("pipeline: conversation %d follows %d in the quality pass", seq, w.verdicts.FirstSeq+n-1)
	}
	return nil
}

// newQualityWrites starts the next batch of conversations.
func (r *run) newQualityWrites() qualityWrites {
	return qualityWrites{
		verdicts: dbsqlc.SetConversationQualityParams{TaskID: r.id, OwnerUserID: r.owner, SelectKept: r.selectedKept},
		search:   dbsqlc.InsertConversationSearchParams{TaskID: r.id, OwnerUserID: r.owner},
	}
}

// populationWrite is what the quality pass stores on the task when it is over.
type populationWrite struct {
	funnel []byte
	labels labelCounts
}

// qualityBatch is what one fenced transaction of the quality pass stores: the writes of
// the conversations checked since the last, the progress, and when the pass is over
// (population is not nil) the funnel and the label counts.
type qualityBatch struct {
	writes      qualityWrites
	done, total int
	population  *populationWrite
}

// storeQuality stores b in one fenced transaction.
func (r *run) storeQuality(ctx context.Context, b qualityBatch) error {
	w, population := b.writes, b.population
	return r.inTx(ctx, "quality verdicts, risk flags and search documents", func(tx pgx.Tx) error {
		if len(w.verdicts.QcStatuses) > 0 {
			n, err := r.q.SetConversationQuality(ctx, tx, w.verdicts)
			if err != nil {
				return err
			}
			if want := len(w.verdicts.QcStatuses); n != int64(want) {
				return fmt.Errorf("%d of the %d conversations from %d were not found", int64(want)-n, want, w.verdicts.FirstSeq)
			}
		}
		if len(w.search.Seqs) > 0 {
			if err := r.q.InsertConversationSearch(ctx, tx, w.search); err != nil {
				return err
			}
		}
		if err := r.setStage(ctx, tx, taskstate.Quality, b.done, b.total); err != nil {
			return err
		}
		if population == nil {
			return nil
		}
		l := population.labels
		_, err := r.q.SetTaskFunnel(ctx, tx, dbsqlc.SetTaskFunnelParams{
			Funnel: population.funnel, KeptFailed: l.failed, KeptSucceeded: l.succeeded, KeptUnlabelled: l.unlabelled,
			ID: r.id, OwnerUserID: r.owner, Attempt: r.lease.Task.Attempt,
		})
		return err
	})
}

// insufficient is the end of a task with too few usable conversations.
func insufficient(f quality.Funnel, min int) workers.Outcome {
	return workers.Outcome{
		Status: taskstate.InsufficientData,
		Error: fmt.Sprintf("Only %d of the %d uploaded conversations passed the quality checks; at least %d are needed (MIN_CONVERSATIONS). See the funnel for the reasons.",
			f.Kept(), f.Uploaded(), min),
	}
}
