package workers

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// maxBackoff caps the wait after a failed claim (the database is down, say).
const maxBackoff = 30 * time.Second

// staleMargin is added to the wait for a heartbeat to go stale, so the claim that
// follows finds it stale.
const staleMargin = 10 * time.Millisecond

// loop claims and runs tasks until Stop or ctx ends. One task at a time: the next
// claim happens only after the previous task settled, at once when there was one (a
// backlog drains without sleeping). A failed claim is logged once and retried after a
// growing backoff; an idle loop logs nothing.
func (w *Worker) loop(ctx context.Context) {
	var backoff time.Duration
	for !w.isStopping() && ctx.Err() == nil {
		ran, err := w.claimAndRun(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			backoff = min(max(2*backoff, 250*time.Millisecond), maxBackoff)
			w.logger.Error("claiming a task failed; retrying", "err", err, "retry_in", backoff)
			w.pause(ctx, backoff, nil)
		case ran:
			backoff = 0
		default:
			backoff = 0
			w.pause(ctx, w.idleWait(ctx), w.wake)
		}
	}
}

// claimAndRun claims the next task and runs it to the end; false when there was none.
func (w *Worker) claimAndRun(ctx context.Context) (bool, error) {
	rows, err := w.q.ClaimTask(ctx, w.pool, dbsqlc.ClaimTaskParams{
		Worker: &w.cfg.ID, Now: w.now(), Stale: interval(w.cfg.Stale),
	})
	if err != nil {
		return false, fmt.Errorf("workers: claim: %w", err)
	}
	if len(rows) == 0 {
		return false, nil
	}
	if w.isStopping() {
		// Stop came while the claim was in flight: give the task straight back
		// rather than start it during the shutdown.
		lease := newLease(w, taskFromClaim(rows[0]), func(error) {})
		lease.handBack(context.WithoutCancel(ctx), false)
		return true, nil
	}
	w.run(ctx, taskFromClaim(rows[0]))
	return true, nil
}

// idleWait is how long an idle worker sleeps: Poll with jitter, or less when a running
// task's heartbeat goes stale sooner, so a lost task is taken over right at the stale
// threshold rather than up to a poll later. The look-up is advisory: when it fails,
// the next claim meets (and reports) the same trouble.
func (w *Worker) idleWait(ctx context.Context) time.Duration {
	wait := jitter(w.cfg.Poll)
	row, err := w.q.ClaimNextStaleIn(ctx, w.pool, dbsqlc.ClaimNextStaleInParams{Now: w.now(), Stale: interval(w.cfg.Stale)})
	if err != nil || row.Running == 0 || row.StaleInMs < 0 {
		return wait
	}
	return min(wait, time.Duration(row.StaleInMs)*time.Millisecond+staleMargin)
}

// pause waits for d, or until ctx ends, Stop is called or wake fires (nil: never).
func (w *Worker) pause(ctx context.Context, d time.Duration, wake <-chan struct{}) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-w.life.Stopping():
	case <-wake:
	case <-timer.C:
	}
}

// jitter spreads d by ±20%, so replicas started together do not poll in step.
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

func interval(d time.Duration) pgtype.Interval {
	return pgtype.Interval{Microseconds: d.Microseconds(), Valid: true}
}
