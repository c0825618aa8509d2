package retention

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

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

func (s *Service) purge(ctx context.Context, now time.Time) (int64, string, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return 0, runFailed, fmt.Errorf("retention: acquire: %w", err)
	}
	defer conn.Release()
	locked, err := s.q.PurgeTryLock(ctx, conn, lockID)
	if err != nil {
		return 0, runFailed, fmt.Errorf("retention: lock: %w", err)
	}
	if !locked {
		return 0, runSkipped, nil
	}
	defer s.unlock(ctx, conn)

	var deleted int64
	for {
		n, err := s.q.PurgeFinishedTasks(ctx, conn, dbsqlc.PurgeFinishedTasksParams{
			Now: &now, Days: int32(s.cfg.Days), BatchSize: int32(s.cfg.BatchSize),
		})
		deleted += n
		s.cfg.Metrics.DeletedTasks.Add(float64(n))
		switch {
		case err != nil:
			return deleted, runFailed, fmt.Errorf("retention: delete finished tasks: %w", err)
		case n < int64(s.cfg.BatchSize) && deleted > 0:
			return deleted, runDeleted, nil
		case n < int64(s.cfg.BatchSize):
			return 0, runNothing, nil
		}
	}
}

// unlock releases the session's lock before the connection goes back to the pool; a
// connection whose unlock failed is closed instead, which releases the lock too.
func (s *Service) unlock(ctx context.Context, conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := s.q.PurgeUnlock(ctx, conn, lockID); err != nil {
		_ = conn.Conn().Close(ctx)
	}
}
