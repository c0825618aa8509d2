package workers

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/checkup-dev/checkup/db/taskstate"
)

// settleTimeout bounds the final write of a task (finish or hand-back), which runs on
// a context of its own so that a shutdown cannot cancel it.
const settleTimeout = 10 * time.Second

const canceledMessage = "Canceled by its owner."

// run runs one claimed task to its end and settles it. It returns the task's status
// afterwards: terminal, pending when handed back, "" when the lease was lost or the
// end could not be saved (the task is then taken over once its heartbeat is stale).
func (w *Worker) run(ctx context.Context, task Task) taskstate.Status {
	w.recordClaim(task)
	taskCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	lease := newLease(w, task, cancel)
	lease.logger.Info("task claimed", "title", task.Title, "stage", task.Stage,
		"lost_count", task.LostCount, "took_over", task.TookOver)
	switch {
	case task.LostCount >= int32(w.cfg.MaxAttempts):
		lease.logger.Error("task failed: its worker was lost too often", "lost_count", task.LostCount, "stage", task.Stage)
		return w.settleNow(ctx, lease, taskstate.Failed, fmt.Sprintf(
			"Failed: worker lost %d times (TASK_MAX_ATTEMPTS); a task that keeps stopping its worker, or losing its database, is not run again.", task.LostCount))
	case task.CancelRequested:
		return w.settleNow(ctx, lease, taskstate.Canceled, canceledMessage)
	}

	w.current.Store(lease)
	defer w.current.Store(nil)
	stopBeats, beating := make(chan struct{}), make(chan struct{})
	go func() { defer close(beating); lease.keepAlive(ctx, stopBeats) }()
	returned := make(chan struct{})
	go w.drainOnStop(lease, returned)

	outcome, err := w.callHandler(taskCtx, lease)
	close(returned)
	close(stopBeats)
	<-beating
	var cause error
	if taskCtx.Err() != nil {
		cause = context.Cause(taskCtx)
	}
	return w.settle(ctx, lease, outcome, err, cause)
}

// drainOnStop tells the handler to start no new unit once Stop is called, and cancels
// the task's context when the shutdown grace runs out.
func (w *Worker) drainOnStop(lease *Lease, returned <-chan struct{}) {
	select {
	case <-returned:
		return
	case <-w.life.Stopping():
	}
	lease.startDrain()
	lease.logger.Info("shutting down: no new unit starts; waiting for the units in flight", "grace", w.cfg.ShutdownGrace)
	timer := time.NewTimer(w.cfg.ShutdownGrace)
	defer timer.Stop()
	select {
	case <-returned:
	case <-timer.C:
		lease.cancel(errShutdownGrace)
	}
}

// callHandler runs the handler, turning a panic into an error so one bad task cannot
// take the worker (and the web server it lives in) down.
func (w *Worker) callHandler(ctx context.Context, lease *Lease) (outcome Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			lease.logger.Error("task handler panicked", append(lease.logAttrs(), "panic", r, "stack", string(debug.Stack()))...)
			err = fmt.Errorf("the task stopped on an internal error (%v)", r)
		}
	}()
	return w.handler.Run(ctx, lease)
}

// settle writes how the task ended, judged by why its context ended (cause), then by
// what the handler returned. Every error is logged here, once.
func (w *Worker) settle(ctx context.Context, l *Lease, outcome Outcome, runErr, cause error) taskstate.Status {
	abrupt := ctx.Err() != nil // Start's context ended: no grace, hand the task back
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	var hb *heartbeatError
	switch {
	case l.lost.Load() || errors.Is(cause, ErrLeaseLost):
		return l.leaseLost()
	case errors.Is(cause, ErrCanceled) && runErr == nil && outcome.Status.Terminal():
		// The cancel came as the handler finished: its result is whole, and stands.
		return l.finish(ctx, outcome.Status, outcome.Error)
	case errors.Is(cause, ErrCanceled):
		return l.finish(ctx, taskstate.Canceled, canceledMessage)
	case errors.As(cause, &hb) && transient(hb.err), cause == nil && runErr != nil && transient(runErr):
		err := runErr
		if hb != nil {
			err = hb.err
		}
		l.logger.Error("task stopped: the database could not be reached in time; handing it back", append(l.logAttrs(), "err", err)...)
		return l.handBack(ctx, true)
	case errors.As(cause, &hb):
		l.logger.Error("task stopped: its heartbeat could not be saved", append(l.logAttrs(), "err", hb.err)...)
		return l.finish(ctx, taskstate.Failed, "The task stopped because its progress could not be saved (a database error). Run it again.")
	case runErr == nil && outcome.Status.Terminal():
		return l.finish(ctx, outcome.Status, outcome.Error)
	case (w.isStopping() || abrupt) && (runErr == nil || errors.Is(runErr, ErrDraining) || cause != nil):
		// A handler that stopped for the shutdown: another worker resumes the task. A
		// handler that failed on its own meanwhile fails the task below, as it would
		// have without the shutdown.
		return l.handBack(ctx, false)
	}
	if runErr == nil {
		runErr = fmt.Errorf("workers: the handler returned no terminal status (%q)", outcome.Status)
	}
	l.logger.Error("task failed", append(l.logAttrs(), "err", runErr)...)
	return l.finish(ctx, taskstate.Failed, ownerMessage(runErr))
}

// settleNow ends a task that is not run at all.
func (w *Worker) settleNow(ctx context.Context, l *Lease, status taskstate.Status, message string) taskstate.Status {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	return l.finish(ctx, status, message)
}

func (w *Worker) recordClaim(task Task) {
	m := w.cfg.Metrics
	m.Claims.Inc()
	if task.TookOver {
		m.Takeovers.Inc()
	}
	if task.Attempt == 1 && !task.ClaimedAt.IsZero() {
		m.WakeLatency.Observe(max(task.ClaimedAt.Sub(task.CreatedAt).Seconds(), 0))
	}
}

// ownerMessage is what the task's owner reads when a run ended on an error: a sentence
// first, then the error itself for whoever they report it to.
func ownerMessage(err error) string {
	return "The diagnosis stopped on an error; run it again, and report it if it recurs: " + err.Error()
}
