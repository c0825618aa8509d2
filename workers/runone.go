package workers

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
)

// RunOne claims task id and runs it in the foreground, for `app worker --task ID`: to
// reproduce a problem with one task. The task must be pending, or running with a stale
// heartbeat (its worker was lost); otherwise RunOne refuses with a sentence saying why.
// When ctx ends the task is drained and handed back as at Stop. It returns the status
// the task ended with (pending when handed back).
func (w *Worker) RunOne(ctx context.Context, id uuid.UUID) (taskstate.Status, error) {
	w.tasks.Add(1)
	defer w.tasks.Done()
	base := context.WithoutCancel(ctx)
	listenCtx, stopListening := context.WithCancel(base)
	listening := w.startListener(listenCtx)
	defer func() { stopListening(); <-listening }()
	stopOnEnd := context.AfterFunc(ctx, w.life.Drain)
	defer stopOnEnd()

	rows, err := w.q.ClaimTask(ctx, w.pool, dbsqlc.ClaimTaskParams{
		ID: &id, Worker: &w.cfg.ID, Now: w.now(), Stale: interval(w.cfg.Stale),
	})
	if err != nil {
		return "", fmt.Errorf("workers: claim task %s: %w", id, err)
	}
	if len(rows) == 0 {
		return "", w.unclaimable(ctx, id)
	}
	return w.run(base, taskFromClaim(rows[0])), nil
}

// unclaimable says why task id could not be claimed.
func (w *Worker) unclaimable(ctx context.Context, id uuid.UUID) error {
	rows, err := w.q.MaintenanceTaskState(ctx, w.pool, dbsqlc.MaintenanceTaskStateParams{ID: id, Now: w.now()})
	if err != nil {
		return fmt.Errorf("workers: task %s: %w", id, err)
	}
	if len(rows) == 0 {
		return fmt.Errorf("there is no task %s", id)
	}
	r := rows[0]
	switch r.Status {
	case taskstate.Running:
		owner := "another worker"
		if r.LeaseOwner != nil {
			owner = *r.LeaseOwner
		}
		age := time.Duration(r.HeartbeatAgeMs) * time.Millisecond
		return fmt.Errorf("task %s is running on %s (attempt %d, heartbeat %s ago); it can be taken over once its heartbeat is older than TASK_STALE_MS (%s): stop that worker, or try again later",
			id, owner, r.Attempt, age.Round(time.Millisecond), w.cfg.Stale)
	case taskstate.Pending:
		return fmt.Errorf("task %s was claimed by another worker just now; try again", id)
	}
	return fmt.Errorf("task %s has already ended (%s); re-run it from its page to run it again", id, r.Status)
}
