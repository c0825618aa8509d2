package workers

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/notified"
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
	sub := notified.NewSubscription(notified.Config{
		Conn: w.pool.Config().ConnConfig,
		Listen: func(ctx context.Context, conn *pgx.Conn) error {
			if err := w.q.MaintenanceListenTasks(ctx, conn); err != nil {
				return err
			}
			return w.q.MaintenanceListenCancels(ctx, conn)
		},
		Live:   w.listening,
		Notify: w.routeNotification,
		Lost:   "cannot LISTEN for new tasks; polling instead until it works again",
		Back:   "listening for new tasks again",
		Logger: w.logger.With("poll", w.cfg.Poll),
	})
	go func() {
		defer close(done)
		sub.Run(ctx)
	}()
	return done
}

// listening catches up, once subscribed, with what was notified while nobody
// listened: a task created then is claimed, and the running task beats at once,
// seeing a cancel requested then.
func (w *Worker) listening(live bool) {
	if !live {
		return
	}
	w.wakeUp()
	if l := w.current.Load(); l != nil {
		l.wake()
	}
}

// routeNotification routes a notification: a new task wakes the loop, a cancel the lease of
// the task it names when this worker runs it.
func (w *Worker) routeNotification(channel, payload string) {
	switch channel {
	case channelTasks:
		w.wakeUp()
	case channelCancel:
		if l := w.current.Load(); l != nil && l.Task.ID.String() == payload {
			l.wake()
		}
	}
}
