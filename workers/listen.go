package workers

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The notification channels (see db/queries/analysis_task.sql).
const (
	channelTasks  = "checkup_tasks"  // a task became pending: claim now
	channelCancel = "checkup_cancel" // payload: the id of a running task to stop
)

// startListener keeps a LISTEN connection open until ctx ends, waking the loop on new
// tasks and the running task's lease on a cancel. The returned channel is closed once
// it has stopped. Polling stays the fallback: without LISTEN (Config.PollOnly, a
// pooler in transaction mode, a broken connection) the worker only wakes later.
func (w *Worker) startListener(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	if w.cfg.PollOnly {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		w.listen(ctx)
	}()
	return done
}

// listen reconnects with a growing backoff. A failure is logged once, when LISTEN
// stops working, not at every retry.
func (w *Worker) listen(ctx context.Context) {
	var backoff time.Duration
	warned := false
	connected := func() {
		backoff = 0
		if warned {
			w.logger.Info("listening for new tasks again")
			warned = false
		}
	}
	for ctx.Err() == nil {
		err := w.listenOnce(ctx, connected)
		if ctx.Err() != nil {
			return
		}
		if !warned {
			w.logger.Warn("cannot LISTEN for new tasks; polling instead until it works again", "err", err, "poll", w.cfg.Poll)
			warned = true
		}
		backoff = min(max(2*backoff, time.Second), maxBackoff)
		timer := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
		case <-timer.C:
		}
		timer.Stop()
	}
}

// listenOnce opens a dedicated connection (a pooled one would be lost to the pool),
// subscribes, and routes notifications until the connection fails or ctx ends.
func (w *Worker) listenOnce(ctx context.Context, connected func()) error {
	conn, err := pgx.ConnectConfig(ctx, w.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("workers: listen: connect: %w", err)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if err := w.q.MaintenanceListenTasks(ctx, conn); err != nil {
		return fmt.Errorf("workers: listen: %w", err)
	}
	if err := w.q.MaintenanceListenCancels(ctx, conn); err != nil {
		return fmt.Errorf("workers: listen: %w", err)
	}
	connected()
	// What was notified while nobody listened is caught up now: a task created then is
	// claimed, and the running task beats at once, seeing a cancel requested then.
	w.wakeUp()
	if l := w.current.Load(); l != nil {
		l.wake()
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("workers: listen: %w", err)
		}
		switch n.Channel {
		case channelTasks:
			w.wakeUp()
		case channelCancel:
			if l := w.current.Load(); l != nil && l.Task.ID.String() == n.Payload {
				l.wake()
			}
		}
	}
}
