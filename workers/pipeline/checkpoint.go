package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/drivers"
)

// maxPending is how many finished diagnoses may wait for their checkpoint, and the most
// one transaction writes. A unit that finds the queue full waits, so a crash loses at
// most twice this many units of offline work (a group being written and a full queue),
// which the next attempt redoes at no cost. At 32
// the offline units of a large task waited on the writer and the diagnosis stage kept
// the two cores 84–86% busy; at 128, 90–91% (BENCHMARKS.md).
const maxPending = 128

// diagnosisCheckpoint is what one finished conversation stores: its diagnosis, or the
// error that isolated it, and what it cost.
type diagnosisCheckpoint struct {
	// seq and name are all it keeps of its conversation: the checkpoints waiting for
	// their write hold no transcript.
	seq       int32
	name      string
	diagnosis []byte // the normalised diagnosis as JSON; nil when isolated
	pass      analyzer.Pass
	usage     analyzer.Usage
	isolated  string // why it could not be diagnosed, when isolated
	adjusted  analyzer.Adjustments
	// features are what the search for failure drivers counts of a labelled
	// conversation once its diagnosis is stored; nil when not searched this way.
	features *drivers.Conversation
	// stored receives the result of the transaction that wrote this checkpoint; nil for
	// a unit that cost no model call, which does not wait for it.
	stored chan error
}

// checkpointer writes the diagnosis stage's checkpoints behind its units (a group
// commit): one goroutine writes, in one fenced transaction, every checkpoint handed
// over while its previous transaction ran. A unit whose diagnosis cost model calls
// waits until its checkpoint is committed, so a crash never loses paid work that
// finished; a unit that cost nothing (the offline analyzer) goes on to its next
// conversation at once, and its checkpoint follows within a transaction's time. When
// units finish further apart than a transaction takes — any model call — each is
// written alone, as soon as it finishes.
type checkpointer struct {
	r     *run
	ctx   context.Context
	queue chan diagnosisCheckpoint
	done  chan struct{} // closed once the writer has returned
	// counted hands the search for failure drivers the features of each stored group,
	// counted on a goroutine of its own so the next transaction starts meanwhile; nil
	// when the run does not search.
	counted *writeBehind[[]drivers.Conversation]

	mu  sync.Mutex
	err error // the first error of a write; nothing is written after it
}

// startCheckpoints starts the writer of the diagnosis checkpoints; close it when no
// unit runs any more.
func (r *run) startCheckpoints(ctx context.Context) *checkpointer {
	ck := &checkpointer{r: r, ctx: ctx, queue: make(chan diagnosisCheckpoint, maxPending), done: make(chan struct{})}
	if r.search != nil {
		ck.counted = startWriteBehind(func(found []drivers.Conversation) error {
			for _, c := range found { // only this goroutine adds while the checkpointer runs
				r.search.Add(c)
				if r.features != nil {
					r.features.Add(c)
				}
			}
			return nil
		})
	}
	go ck.write()
	return ck
}

// put hands a finished unit's checkpoint over. It returns the error that stopped the
// writer, if any; for a unit that cost model calls, the result of its own write.
func (ck *checkpointer) put(c diagnosisCheckpoint) error {
	if err := ck.failed(); err != nil {
		return err
	}
	if c.usage != (analyzer.Usage{}) {
		c.stored = make(chan error, 1)
	}
	ck.queue <- c
	if c.stored != nil {
		return <-c.stored
	}
	return nil
}

// close waits until every checkpoint handed over is written, and returns the error
// that stopped the writer, if any.
func (ck *checkpointer) close() error {
	close(ck.queue)
	<-ck.done
	if ck.counted != nil {
		if err := ck.counted.wait(); err != nil {
			return err
		}
	}
	return ck.failed()
}

// failed returns the error that stopped the writer, or nil.
func (ck *checkpointer) failed() error {
	ck.mu.Lock()
	defer ck.mu.Unlock()
	return ck.err
}

// write stores the checkpoints handed over until the queue is closed, all that are
// waiting in each transaction. After an error (a panic included: this goroutine is
// beyond the worker's recover) it stores nothing more and answers every unit with
// that error, so none waits forever.
func (ck *checkpointer) write() {
	defer close(ck.done)
	group := make([]diagnosisCheckpoint, 0, maxPending)
	for c := range ck.queue {
		group = append(group[:0], c)
	waiting:
		for len(group) < maxPending {
			select {
			case c, ok := <-ck.queue:
				if !ok {
					break waiting
				}
				group = append(group, c)
			default:
				break waiting
			}
		}
		err := ck.failed()
		if err == nil {
			if err = protect(ck.store, group); err != nil {
				ck.mu.Lock()
				ck.err = err
				ck.mu.Unlock()
			}
		}
		for _, c := range group {
			if c.stored != nil {
				c.stored <- err
			}
		}
	}
}

// store writes group. When the database refuses a value of it (text it cannot store,
// such as U+0000), the group is written one checkpoint at a time, and each refused
// diagnosis is stored as its conversation's isolation instead: one unit's answer never
// fails the task.
func (ck *checkpointer) store(group []diagnosisCheckpoint) error {
	err := ck.r.storeCheckpoints(ck.ctx, group)
	if _, refused := refusedValue(err); !refused {
		if err != nil {
			return err
		}
		return ck.count(group)
	}
	for _, c := range group {
		err := ck.r.storeCheckpoints(ck.ctx, []diagnosisCheckpoint{c})
		if why, refused := refusedValue(err); refused && c.diagnosis != nil {
			ck.r.lease.Logger().Warn("conversation isolated: its diagnosis cannot be stored", "stage", taskstate.Diagnosis, "unit", c.name, "err", err)
			c.diagnosis, c.isolated = nil, "the database refused to store its diagnosis ("+why+")"
			err = ck.r.storeCheckpoints(ck.ctx, []diagnosisCheckpoint{c})
		}
		if err != nil {
			return err
		}
		if err := ck.count([]diagnosisCheckpoint{c}); err != nil {
			return err
		}
	}
	return nil
}

// count hands the features of the stored diagnoses of group to the search, once
// their transaction has committed: an isolated conversation is not counted.
func (ck *checkpointer) count(group []diagnosisCheckpoint) error {
	if ck.counted == nil {
		return nil
	}
	var found []drivers.Conversation
	for _, c := range group {
		if c.diagnosis != nil && c.features != nil {
			found = append(found, *c.features)
		}
	}
	if len(found) == 0 {
		return nil
	}
	return ck.counted.put(found)
}

// storeCheckpoints writes a group of finished conversations in one fenced transaction:
// the diagnosed ones in one statement (diagnoses, findings and task counters), each
// isolated one marked, named in a warning and counted. The transaction's fenced touch
// refreshes the heartbeat, so a stored checkpoint is the heartbeat of its units; when
// it finds that the owner asked to cancel, a heartbeat follows, which ends the task's
// context as it does whenever it sees a cancel.
func (r *run) storeCheckpoints(ctx context.Context, group []diagnosisCheckpoint) error {
	done := dbsqlc.StoreConversationDiagnosesParams{TaskID: r.id, OwnerUserID: r.owner, Attempt: r.lease.Task.Attempt}
	var usage analyzer.Usage
	for _, c := range group {
		usage = usage.Add(c.usage)
		if c.diagnosis == nil {
			continue
		}
		done.Seqs = append(done.Seqs, c.seq)
		done.Diagnoses = append(done.Diagnoses, string(c.diagnosis))
		done.Passes = append(done.Passes, string(c.pass))
		done.Calls = append(done.Calls, int32(c.usage.Calls))
		done.PromptTokens = append(done.PromptTokens, int64(c.usage.PromptTokens))
		done.CompletionTokens = append(done.CompletionTokens, int64(c.usage.CompletionTokens))
	}
	what := "diagnosis of conversation " + group[0].name
	if len(group) > 1 {
		what = fmt.Sprintf("diagnoses of %d conversations from %s", len(group), group[0].name)
	}
	cancel := false
	err := r.inTx(ctx, what, func(tx pgx.Tx) error {
		if len(done.Seqs) > 0 {
			row, err := r.q.StoreConversationDiagnoses(ctx, tx, done)
			if err != nil {
				return err
			}
			if int(row.Stored) != len(done.Seqs) || row.Counted != 1 {
				return fmt.Errorf("%d of %d conversations were not pending diagnosis any more", len(done.Seqs)-int(row.Stored), len(done.Seqs))
			}
			cancel = row.CancelRequested
		}
		for _, c := range group {
			if c.diagnosis == nil || !c.adjusted.Any() {
				continue
			}
			if err := r.warn(ctx, tx, taskstate.Diagnosis, "conversation "+c.name,
				fmt.Sprintf("Conversation %s: %s", c.name, c.adjusted)); err != nil {
				return err
			}
		}
		for _, c := range group {
			if c.diagnosis != nil {
				continue
			}
			requested, err := r.storeIsolation(ctx, tx, c)
			if err != nil {
				return err
			}
			cancel = cancel || requested
		}
		return r.addUsage(ctx, tx, taskstate.Diagnosis, usage)
	})
	if err != nil {
		return err
	}
	if cancel {
		return r.lease.Heartbeat(ctx)
	}
	return nil
}

// storeIsolation records a conversation whose diagnosis failed inside tx: marked
// isolated with the error, named in a warning, counted as isolated. It reports whether
// the owner asked to cancel.
func (r *run) storeIsolation(ctx context.Context, tx pgx.Tx, c diagnosisCheckpoint) (bool, error) {
	if _, err := r.q.SaveConversationDiagnosis(ctx, tx, dbsqlc.SaveConversationDiagnosisParams{
		DiagnosisStatus: "isolated", DiagnosisError: c.isolated, TaskID: r.id, OwnerUserID: r.owner, Seq: c.seq,
	}); err != nil {
		return false, err
	}
	if err := r.warn(ctx, tx, taskstate.Diagnosis, "conversation "+c.name,
		fmt.Sprintf("Conversation %s could not be diagnosed and is left out of the results: %s", c.name, c.isolated)); err != nil {
		return false, err
	}
	return r.countUnit(ctx, tx, c.usage, true)
}

// diagnosisJSON encodes a normalised diagnosis for its checkpoint.
func diagnosisJSON(c storedConversation, d analyzer.Diagnosis) ([]byte, error) {
	raw, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("pipeline: diagnosis of conversation %s: %w", c.name(), err)
	}
	return raw, nil
}
