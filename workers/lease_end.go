package workers

import (
	"context"
	"time"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
)

// finish ends the task with a terminal status, fenced: a lease lost in the meantime
// writes nothing. It returns the status, or "" when nothing was written.
func (l *Lease) finish(ctx context.Context, status taskstate.Status, message string) taskstate.Status {
	n, err := l.w.q.FinishTask(ctx, l.w.pool, dbsqlc.FinishTaskParams{
		ID: l.Task.ID, OwnerUserID: l.Task.Owner.UserID(), Attempt: l.Task.Attempt, Now: l.w.now(),
		Status: status, Error: message,
	})
	if err != nil {
		l.logger.Error("could not save the task's end; another worker takes it over once its heartbeat is stale",
			append(l.logAttrs(), "status", status, "err", err)...)
		return ""
	}
	if n == 0 {
		return l.leaseLost()
	}
	elapsed := time.Since(l.started)
	l.w.cfg.Metrics.TaskDuration.WithLabelValues(string(status)).Observe(elapsed.Seconds())
	l.logger.Info("task finished", "status", status, "duration", elapsed.Round(time.Millisecond), "message", message)
	return status
}

// handBack makes the task pending again for another worker to resume at once, fenced;
// the attempt (fencing token) stays consumed. lost_count stays at a shutdown, and
// counts one more after a database failure (afterFailure), so a task that keeps
// failing that way cannot loop for ever.
func (l *Lease) handBack(ctx context.Context, afterFailure bool) taskstate.Status {
	var lost int32
	if afterFailure {
		lost = 1
	}
	n, err := l.w.q.HandBackTask(ctx, l.w.pool, dbsqlc.HandBackTaskParams{
		ID: l.Task.ID, OwnerUserID: l.Task.Owner.UserID(), Attempt: l.Task.Attempt, Lost: lost,
	})
	if err != nil {
		l.logger.Error("could not hand the task back; another worker takes it over once its heartbeat is stale",
			append(l.logAttrs(), "err", err)...)
		return ""
	}
	if n == 0 {
		return l.leaseLost()
	}
	l.w.cfg.Metrics.HandBacks.Inc()
	l.logger.Info("task handed back for another worker to resume", l.logAttrs()...)
	return taskstate.Pending
}

// leaseLost records that another worker holds the task now, or that it ended
// elsewhere: this worker has written, and writes, nothing more.
func (l *Lease) leaseLost() taskstate.Status {
	l.lost.Store(true)
	l.w.cfg.Metrics.LostLeases.Inc()
	l.logger.Warn("lease lost: another worker took the task over, or it ended elsewhere; nothing more is written",
		l.logAttrs()...)
	return ""
}
