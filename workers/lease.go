package workers

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
)

// Lease is a worker's hold on one claimed task, valid while its fencing token
// (Task.Attempt) is the task's current attempt and the task is running. Every write
// goes through it, carrying the token, so a worker that lost the lease writes nothing.
type Lease struct {
	Task Task

	w        *Worker
	logger   *slog.Logger
	cancel   context.CancelCauseFunc // ends the task's context with the reason
	draining chan struct{}
	drain    sync.Once
	poke     chan struct{} // a cancel notification: heartbeat now
	lost     atomic.Bool
	started  time.Time

	mu    sync.Mutex
	stage taskstate.Stage
	unit  string
}

func newLease(w *Worker, task Task, cancel context.CancelCauseFunc) *Lease {
	return &Lease{
		Task: task, w: w, cancel: cancel, stage: task.Stage, started: time.Now(),
		logger:   w.logger.With("task_id", task.ID, "attempt", task.Attempt),
		draining: make(chan struct{}),
		poke:     make(chan struct{}, 1),
	}
}

// Logger logs with the task's id and attempt.
func (l *Lease) Logger() *slog.Logger { return l.logger }

// Draining reports whether the worker is shutting down: the handler must start no
// new unit, and should return once the units in flight are stored.
func (l *Lease) Draining() bool {
	select {
	case <-l.draining:
		return true
	default:
		return false
	}
}

// Unit records the unit the handler starts (a conversation, a cluster), for the logs:
// the standalone worker prints it, and an error names it.
func (l *Lease) Unit(name string) {
	l.mu.Lock()
	l.unit = name
	l.mu.Unlock()
	l.logger.Log(context.Background(), l.w.talkLevel(), "unit", "stage", l.currentStage(), "unit", name)
}

// Heartbeat refreshes the lease now. Handlers rarely need it: the worker beats every
// Config.Heartbeat, and every InTx and Progress is a heartbeat too. It returns
// ErrLeaseLost, ErrCanceled, or the database error, and in each case has already
// ended the task's context.
func (l *Lease) Heartbeat(ctx context.Context) error { return l.beat(ctx, ctx) }

// beat runs the fenced heartbeat with ctx; a failure is excused (not an
// infrastructure error) only when caller, the context of whoever asked, has ended.
func (l *Lease) beat(ctx, caller context.Context) error {
	row, err := l.w.q.HeartbeatTask(ctx, l.w.pool, dbsqlc.HeartbeatTaskParams{
		ID: l.Task.ID, OwnerUserID: l.Task.Owner.UserID(), Attempt: l.Task.Attempt, Now: l.w.now(),
	})
	switch {
	case err != nil:
		return l.dbFailed(caller, err)
	case !row.Held:
		return l.lose()
	case row.CancelRequested:
		l.cancel(ErrCanceled)
		return ErrCanceled
	}
	return nil
}

// Progress records the stage and how many of its units are done; it is a heartbeat
// as well. The standalone worker prints each new stage.
func (l *Lease) Progress(ctx context.Context, stage taskstate.Stage, done, total int) error {
	n, err := l.w.q.SetTaskProgress(ctx, l.w.pool, dbsqlc.SetTaskProgressParams{
		ID: l.Task.ID, OwnerUserID: l.Task.Owner.UserID(), Attempt: l.Task.Attempt, Now: l.w.now(),
		Stage: stage, ProgressDone: int32(done), ProgressTotal: int32(total),
	})
	if err != nil {
		return l.dbFailed(ctx, err)
	}
	if n == 0 {
		return l.lose()
	}
	l.mu.Lock()
	changed := l.stage != stage
	l.stage = stage
	l.mu.Unlock()
	if changed {
		l.logger.Log(ctx, l.w.talkLevel(), "stage", "stage", stage, "total", total)
	}
	return nil
}

// InTx runs fn in a transaction that begins with the fenced update of the task row:
// the row stays locked until commit, so no takeover can slip in between, and a lost
// lease rolls the transaction back with ErrLeaseLost before fn runs. Write each
// finished unit in one InTx: it is the unit's checkpoint, and a heartbeat.
func (l *Lease) InTx(ctx context.Context, fn func(pgx.Tx) error) error {
	tx, err := l.w.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("workers: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit
	n, err := l.w.q.TouchTaskLease(ctx, tx, dbsqlc.TouchTaskLeaseParams{
		ID: l.Task.ID, OwnerUserID: l.Task.Owner.UserID(), Attempt: l.Task.Attempt, Now: l.w.now(),
	})
	if err != nil {
		return fmt.Errorf("workers: touch lease: %w", err)
	}
	if n == 0 {
		return l.lose()
	}
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("workers: commit: %w", err)
	}
	return nil
}

// lose marks the lease lost and ends the task's context: nothing more is written.
func (l *Lease) lose() error {
	l.lost.Store(true)
	l.cancel(ErrLeaseLost)
	return ErrLeaseLost
}

// dbFailed handles a heartbeat or progress update that could not be saved. When the
// caller's own context ended, that is the reason, not the database. Otherwise it is an
// infrastructure error: the task stops, and the worker fails it or leaves it for
// takeover.
func (l *Lease) dbFailed(caller context.Context, err error) error {
	if caller.Err() != nil {
		return context.Cause(caller)
	}
	l.w.cfg.Metrics.HeartbeatFailures.Inc()
	hb := &heartbeatError{err: err}
	l.cancel(hb)
	return hb
}

// keepAlive beats every Config.Heartbeat, and at once when a cancel notification
// arrives, until stop is closed or a beat ends the task's context. ctx is the
// worker's, not the task's: the lease is kept while the handler winds down.
func (l *Lease) keepAlive(ctx context.Context, stop <-chan struct{}) {
	ticker := time.NewTicker(l.w.cfg.Heartbeat)
	defer ticker.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-ticker.C:
		case <-l.poke:
		}
		beatCtx, cancel := context.WithTimeout(ctx, l.w.cfg.Stale/2)
		err := l.beat(beatCtx, ctx)
		cancel()
		if err != nil {
			return
		}
	}
}

func (l *Lease) startDrain() { l.drain.Do(func() { close(l.draining) }) }

// wake asks the heartbeat loop to beat now (a cancel notification arrived).
func (l *Lease) wake() {
	select {
	case l.poke <- struct{}{}:
	default:
	}
}

func (l *Lease) currentStage() taskstate.Stage {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stage
}

// logAttrs are the attributes every error about this task is logged with.
func (l *Lease) logAttrs() []any {
	l.mu.Lock()
	defer l.mu.Unlock()
	return []any{"stage", l.stage, "unit", l.unit}
}
