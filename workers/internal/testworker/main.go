// Command testworker is a worker process for the worker's tests: the real loop, lease
// and shutdown with testhandler's units instead of the diagnosis pipeline. Tests build
// it and run it as an OS process, to kill, stop and restart it. It reads the app's
// settings (DATABASE_URL, WORKER_POLL_MS, TASK_STALE_MS, TASK_HEARTBEAT_MS,
// TASK_MAX_ATTEMPTS, SHUTDOWN_GRACE_MS). SIGTERM drains and hands the task back; a
// second SIGTERM exits at once.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/checkup-dev/checkup/app/config"
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
	cfg, _, err := config.Load(os.Getenv)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx := context.Background()
	pool, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()

	wcfg := workers.Config{
		ID:            fmt.Sprintf("testworker-%d", os.Getpid()),
		Poll:          cfg.WorkerPoll,
		Stale:         cfg.TaskStale,
		Heartbeat:     cfg.TaskHeartbeat,
		MaxAttempts:   cfg.TaskMaxAttempts,
		ShutdownGrace: cfg.ShutdownGrace,
		Talk:          true,
	}
	if wcfg.ShutdownGrace == 0 {
		wcfg.ShutdownGrace = -1
	}
	handler := testhandler.New(pool, wcfg.ID)
	handler.Crash = func() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	handler.Pause = func() { _ = syscall.Kill(os.Getpid(), syscall.SIGSTOP) }
	w := workers.New(pool, handler, wcfg, logger)

	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	w.Start(ctx)
	logger.Info("testworker ready")
	<-signals
	go func() {
		<-signals
		os.Exit(130)
	}()
	return w.Stop(ctx)
}
