// Package workers runs analysis tasks from the task table, which is the queue: a
// worker claims one task at a time with a compare-and-set UPDATE (FOR UPDATE SKIP
// LOCKED), keeps a heartbeat lease on it whose fencing token (the task's attempt)
// guards every write, and settles it when the handler returns. A task whose worker
// dies is taken over once its heartbeat is older than Config.Stale and resumed from
// its checkpoints; at shutdown the task is handed back so another instance resumes it
// at once. Every web instance embeds a Worker; `app worker` runs one alone.
//
// It imports nothing of app or views: it takes its settings as plain values (Config)
// and reads and writes the task table through db/dbsqlc, in db/taskstate's words.
package workers

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/startstop"
)

// Worker claims and runs tasks, one at a time, until Stop.
type Worker struct {
	pool    *pgxpool.Pool
	handler Handler
	cfg     Config
	logger  *slog.Logger
	q       *dbsqlc.Queries

	wake    chan struct{}         // a task became pending; capacity 1
	current atomic.Pointer[Lease] // the task running now, for cancel notifications

	life  startstop.Base // Stopping: claim no more, drain the task; Stopped: the loop returned
	tasks sync.WaitGroup // tasks in flight, from the loop or RunOne
}

// New returns a worker that runs handler on the tasks of pool's database. It does
// nothing until Start (or RunOne).
func New(pool *pgxpool.Pool, handler Handler, cfg Config, logger *slog.Logger) *Worker {
	return &Worker{
		pool: pool, handler: handler, cfg: cfg, logger: logger.With("worker", cfg.ID),
		q:    dbsqlc.New(),
		wake: make(chan struct{}, 1),
	}
}

// ID is the worker's lease owner name.
func (w *Worker) ID() string { return w.cfg.ID }

// Metrics is what the worker records.
func (w *Worker) Metrics() *Metrics { return w.cfg.Metrics }

// Start starts the loop: the first claim is attempted at once. A second Start, or a
// Start after Stop, does nothing. When ctx ends the loop stops abruptly (the task in
// flight is cancelled and handed back); call Stop for a graceful shutdown. It returns
// at once, with no error: the loop reports its own, and retries.
func (w *Worker) Start(ctx context.Context) error {
	w.life.Start(ctx, func(ctx context.Context) {
		ctx, cancel := context.WithCancel(ctx)
		listening := w.startListener(ctx)
		defer func() { cancel(); <-listening }()
		w.loop(ctx)
	})
	return nil
}

// Stop shuts the worker down gracefully: it claims nothing more, tells the running
// handler to start no new unit, lets the units in flight finish for up to
// Config.ShutdownGrace, then cancels the task's context and hands the task back
// (pending, its lease cleared) so another instance resumes it at once. It returns when
// the worker is idle, or with ctx's error if ctx ends first. Safe to call twice.
func (w *Worker) Stop(ctx context.Context) error {
	if err := w.life.Stop(ctx); err != nil {
		return err
	}
	idle := make(chan struct{})
	go func() { w.tasks.Wait(); close(idle) }()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *Worker) isStopping() bool { return w.life.IsStopping() }

// wakeUp makes an idle loop claim at once.
func (w *Worker) wakeUp() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// now is the time-dependent queries' clock: nil (the database's) unless a test set one.
func (w *Worker) now() *time.Time {
	if w.cfg.Now == nil {
		return nil
	}
	t := w.cfg.Now()
	return &t
}

func (w *Worker) talkLevel() slog.Level {
	if w.cfg.Talk {
		return slog.LevelInfo
	}
	return slog.LevelDebug
}
