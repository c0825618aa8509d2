package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/metrics"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/retention"
)

// stopMargin is added to SHUTDOWN_GRACE_MS when waiting for the worker to stop: the
// time to hand the task back after the grace.
const stopMargin = 15 * time.Second

// worker runs the task worker without the web server, printing each task, stage, unit
// and warning: the loop until SIGINT/SIGTERM, or with --task ID that one task in the
// foreground. The first signal drains and hands the task back; a second exits at once.
func worker(ctx context.Context, cfg config.Config, logger *slog.Logger, args []string) error {
	flags := flag.NewFlagSet("worker", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	taskArg := flags.String("task", "", "run this one task in the foreground, then exit")
	if err := flags.Parse(args); err != nil {
		return fmt.Errorf("worker: %v (usage: app worker [--task ID])", err)
	}
	var taskID uuid.UUID
	if *taskArg != "" {
		id, err := uuid.Parse(*taskArg)
		if err != nil {
			return fmt.Errorf("--task needs a task id, like 0b57ded3-84f6-4606-82ac-4029233e9a9b (%q is not one)", *taskArg)
		}
		taskID = id
	}

	ctx, stopSignals := notifyShutdown(ctx, logger)
	defer stopSignals()
	pool, closeDB, err := openDatabase(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer closeDB()
	logger.LogAttrs(ctx, slog.LevelInfo, "configuration", config.Summary(cfg)...)
	reg := metrics.New(pool, metrics.Config{Stale: cfg.TaskStale, Logger: logger})
	wcfg := workerConfig(cfg, true)
	wcfg.Metrics = reg.Worker
	handler, err := newHandler(pool, cfg, reg.ObserveLLMCall, logger)
	if err != nil {
		return err
	}
	w := workers.New(pool, handler, wcfg, logger)

	if taskID != uuid.Nil {
		status, err := w.RunOne(ctx, taskID)
		if err != nil {
			return err
		}
		logger.Info("task run ended", "task_id", taskID, "status", status)
		return nil
	}
	if cfg.MetricsAddr != "" {
		stopMetrics, err := reg.Serve(cfg.MetricsAddr)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	housekeeping := retention.New(pool, retention.Config{Days: cfg.RetentionDays, Metrics: reg.Retention}, logger)
	housekeeping.Start(ctx)
	defer housekeeping.Stop()
	w.Start(context.WithoutCancel(ctx))
	logger.Info("worker started; waiting for tasks", "worker", w.ID())
	<-ctx.Done()
	return stopWorker(w, cfg)
}

// stopWorker stops w gracefully (see workers.Worker.Stop), waiting at most the
// shutdown grace and the time to hand the task back.
func stopWorker(w *workers.Worker, cfg config.Config) error {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace+stopMargin)
	defer cancel()
	if err := w.Stop(ctx); err != nil {
		return errors.New("the worker did not stop in time; its task is taken over once its heartbeat is stale")
	}
	return nil
}

// workerConfig maps the settings onto the worker's configuration. talk prints every
// stage, unit and warning (the standalone worker); the embedded one logs them at debug.
func workerConfig(cfg config.Config, talk bool) workers.Config {
	grace := cfg.ShutdownGrace
	if grace == 0 {
		grace = -1 // SHUTDOWN_GRACE_MS=0: hand the task back at once (zero is the worker's "default")
	}
	return workers.Config{
		Poll:          cfg.WorkerPoll,
		Stale:         cfg.TaskStale,
		Heartbeat:     cfg.TaskHeartbeat,
		MaxAttempts:   cfg.TaskMaxAttempts,
		ShutdownGrace: grace,
		Talk:          talk,
	}
}
