package retention

import (
	"context"
	"fmt"
	"time"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// Outcomes of a run, the values of the runs metric's label.
const (
	runDeleted = "deleted" // deleted at least one task
	runNothing = "nothing" // had nothing old enough to delete
	runSkipped = "skipped" // another instance held the lock
	runFailed  = "failed"
)

// runOnce deletes, in batches, every finished task that finished more than Days days
// before now, unless another instance is doing it already. It returns how many tasks
// it deleted, also when it fails halfway.
func (s *Service) runOnce(ctx context.Context, now time.Time) (int64, error) {
	deleted, outcome, err := s.purge(ctx, now)
	s.cfg.Metrics.Runs.WithLabelValues(outcome).Inc()
	return deleted, err
}

// purge runs batches until one comes back short. Each batch is a transaction that
// first takes the retention lock: when another instance holds it, this run stops
// there and leaves the rest to that instance.
func (s *Service) purge(ctx context.Context, now time.Time) (int64, string, error) {
	var deleted int64
	for {
		n, locked, err := s.batch(ctx, now)
		deleted += n
		s.cfg.Metrics.DeletedTasks.Add(float64(n))
		switch {
		case err != nil:
			return deleted, runFailed, err
		case !locked && deleted == 0:
			return 0, runSkipped, nil
		case (!locked || n < int64(s.cfg.BatchSize)) && deleted > 0:
			return deleted, runDeleted, nil
		case n < int64(s.cfg.BatchSize):
			return 0, runNothing, nil
		}
	}
}

// batch deletes up to BatchSize tasks in one transaction holding the retention lock.
func (s *Service) batch(ctx context.Context, now time.Time) (deleted int64, locked bool, err error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("retention: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit
	if locked, err = s.q.PurgeTryLock(ctx, tx, lockID); err != nil || !locked {
		if err != nil {
			err = fmt.Errorf("retention: lock: %w", err)
		}
		return 0, false, err
	}
	n, err := s.q.PurgeFinishedTasks(ctx, tx, dbsqlc.PurgeFinishedTasksParams{
		Now: &now, Days: int32(s.cfg.Days), BatchSize: int32(s.cfg.BatchSize),
	})
	if err != nil {
		return 0, true, fmt.Errorf("retention: delete finished tasks: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, true, fmt.Errorf("retention: commit: %w", err)
	}
	return n, true, nil
}
