package pipeline

import (
	"context"
	"sync"

	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/drivers"
)

// maxPending is how many finished diagnoses may wait for their checkpoint, and the most
// one transaction writes. A unit that finds the queue full waits, so a crash loses at
// most twice this many units of offline work (a group being written and a full queue),
// which the next attempt redoes at no cost. At 32
// the offline units of a large task waited on the writer: the diagnosis stage of a task
// of 10,000 kept the two cores 82% busy, and 91% since (BENCHMARKS.md).
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
// over while its previous transaction ran, and a second counts each committed group's
// features for the failure drivers; close waits for both. A unit whose diagnosis cost
// model calls waits until its checkpoint is committed, so a crash never loses paid work
// that finished; a unit that cost nothing (the offline analyzer) goes on to its next
// conversation at once, and its checkpoint follows within a transaction's time. When
// units finish further apart than a transaction takes — any model call — each is
// written alone, as soon as it finishes.
type checkpointer struct {
	r     *run
	ctx   context.Context
	queue chan diagnosisCheckpoint
	done  chan struct{} // closed once the writer has returned
	// counter hands the search for failure drivers the features of each stored group,
	// counted on a goroutine of its own so the next transaction starts meanwhile; nil
	// when the run does not search.
	counter *writeBehind[[]drivers.Conversation]

	mu  sync.Mutex
	err error // the first error of a write; nothing is written after it
}

// startCheckpoints starts the writer of the diagnosis checkpoints; close it when no
// unit runs any more.
func (r *run) startCheckpoints(ctx context.Context) *checkpointer {
	ck := &checkpointer{r: r, ctx: ctx, queue: make(chan diagnosisCheckpoint, maxPending), done: make(chan struct{})}
	if r.search != nil {
		ck.counter = startWriteBehind(func(found []drivers.Conversation) error {
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
	if ck.counter != nil {
		if err := ck.counter.wait(); err != nil {
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
		return ck.countStored(group)
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
		if err := ck.countStored([]diagnosisCheckpoint{c}); err != nil {
			return err
		}
	}
	return nil
}

// countStored hands the features of the stored diagnoses of group to the search, once
// their transaction has committed: an isolated conversation is not counted.
func (ck *checkpointer) countStored(group []diagnosisCheckpoint) error {
	if ck.counter == nil {
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
	return ck.counter.put(found)
}
