// Package retention deletes finished tasks older than RETENTION_DAYS, with every row
// that belongs to them, for every owner. It runs in every instance, once an hour, and
// an advisory lock lets one instance at a time do the work, so replicas never race or
// double the load. Pending and running tasks are never deleted, however old.
package retention

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/startstop"
)

// lockID is the advisory lock of a retention run: whoever holds it purges, the other
// instances skip that run. It differs from the migration lock.
const lockID = 0x636b5f7265746e // "ck_retn"

// Config tunes a Service. The zero value is off: Days must be set to delete anything.
type Config struct {
	// Days is how long a finished task is kept, counted from when it finished. 0 keeps
	// every task: Start does nothing.
	Days int
	// Interval is the time between two runs; the first runs at Start. Default 1 h.
	Interval time.Duration
	// BatchSize is the most tasks one statement deletes, with their rows. A backlog is
	// deleted in batches so that no statement holds locks on thousands of tasks and
	// millions of child rows at once. Default 100.
	BatchSize int
	// Metrics records the runs and deletions; nil records into an unregistered set.
	Metrics *Metrics
}

// withDefaults fills every unset field: the one place defaults live.
func (c Config) withDefaults() Config {
	c.Interval = cmp.Or(c.Interval, time.Hour)
	c.BatchSize = cmp.Or(c.BatchSize, 100)
	if c.Metrics == nil {
		c.Metrics = NewMetrics()
	}
	return c
}

// Service runs retention on a ticker until Stop.
type Service struct {
	pool   *pgxpool.Pool
	cfg    Config
	logger *slog.Logger
	q      *dbsqlc.Queries

	life startstop.Base
}

// New returns a retention service on pool's database. It does nothing until Start.
func New(pool *pgxpool.Pool, cfg Config, logger *slog.Logger) *Service {
	return &Service{
		pool: pool, cfg: cfg.withDefaults(), logger: logger.With("service", "retention"),
		q: dbsqlc.New(),
	}
}

// Start runs the first pass at once and then one every Config.Interval, until ctx
// ends or Stop. With Config.Days 0 it does nothing. A second Start does nothing. It
// returns at once, with no error: a failed pass is logged and the next one tried.
func (s *Service) Start(ctx context.Context) error {
	s.life.Start(ctx, func(ctx context.Context) {
		if s.cfg.Days <= 0 {
			return
		}
		ctx, cancel := s.life.WithStop(ctx)
		defer cancel()
		s.loop(ctx)
	})
	return nil
}

// Stop ends the loop, cancelling a run in progress (the batches already deleted stay
// deleted), and returns once it has returned, or with ctx's error if ctx ends first.
// Safe to call twice, or without Start.
func (s *Service) Stop(ctx context.Context) error {
	return s.life.Stop(ctx)
}

func (s *Service) loop(ctx context.Context) {
	ticker := time.NewTicker(s.cfg.Interval)
	defer ticker.Stop()
	for {
		s.runLogged(ctx, time.Now())
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// runLogged runs one pass and logs it: one line when it deleted something, one when
// it failed, nothing otherwise.
func (s *Service) runLogged(ctx context.Context, now time.Time) {
	start := time.Now()
	deleted, err := s.runOnce(ctx, now)
	switch {
	case err != nil && ctx.Err() == nil:
		s.logger.Error("retention run failed", "err", err, "deleted_tasks", deleted)
	case deleted > 0:
		s.logger.Info("retention deleted finished tasks", "deleted_tasks", deleted,
			"retention_days", s.cfg.Days, "duration", time.Since(start))
	}
}
