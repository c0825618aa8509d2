// Command testworker is a worker process for the worker's tests: the real loop, lease
// and shutdown with testhandler's units instead of the diagnosis pipeline. Tests build
// it and run it as an OS process, to kill, stop and restart it. It reads the app's
// setting names, every one required (the tests pass them all): DATABASE_URL,
// WORKER_POLL_MS, TASK_STALE_MS, TASK_HEARTBEAT_MS, TASK_MAX_ATTEMPTS and
// SHUTDOWN_GRACE_MS. SIGTERM drains and hands the task back; a second SIGTERM exits at
// once.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/checkup-dev/checkup/db"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/internal/testhandler"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "testworker:", err)
		os.Exit(1)
	}
}

func run() error {
	var env settings
	wcfg := workers.Config{
		ID:            fmt.Sprintf("testworker-%d", os.Getpid()),
		Poll:          env.millis("WORKER_POLL_MS"),
		Stale:         env.millis("TASK_STALE_MS"),
		Heartbeat:     env.millis("TASK_HEARTBEAT_MS"),
		MaxAttempts:   env.number("TASK_MAX_ATTEMPTS"),
		ShutdownGrace: env.millis("SHUTDOWN_GRACE_MS"),
		Talk:          true,
		Metrics:       workers.NewMetrics(),
	}
	if env.err != nil {
		return env.err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx := context.Background()
	pool, err := db.Open(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		return err
	}
	defer pool.Close()

	handler := testhandler.New(pool, wcfg.ID)
	handler.Crash = func() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	handler.Pause = func() { _ = syscall.Kill(os.Getpid(), syscall.SIGSTOP) }
	w := workers.New(pool, handler, wcfg, logger)

	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	if err := w.Start(ctx); err != nil {
		return err
	}
	logger.Info("testworker ready")
	<-signals
	go func() {
		<-signals
		os.Exit(130)
	}()
	return w.Stop(ctx)
}

// settings reads the environment, keeping the first error.
type settings struct{ err error }

func (s *settings) number(name string) int {
	v, err := strconv.Atoi(os.Getenv(name))
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("%s: %w", name, err)
	}
	return v
}

func (s *settings) millis(name string) time.Duration {
	return time.Duration(s.number(name)) * time.Millisecond
}
