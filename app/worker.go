package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/google/uuid"

	"github.com/checkup-dev/checkup/app/config"
)

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
	life, closeLife := newLifecycle(logger)
	defer closeLife()
	pool, err := startDatabase(ctx, cfg, logger, life)
	if err != nil {
		return err
	}
	logger.LogAttrs(ctx, slog.LevelInfo, "configuration", config.Summary(cfg)...)
	svc, err := newServices(pool, cfg, logger, true, true)
	if err != nil {
		return err
	}
	if taskID != uuid.Nil {
		status, err := svc.worker.RunOne(ctx, taskID)
		if err != nil {
			return err
		}
		logger.Info("task run ended", "task_id", taskID, "status", status)
		return nil
	}
	if err := svc.serveMetrics(cfg.MetricsAddr, life); err != nil {
		return err
	}
	if err := svc.start(ctx); err != nil {
		return err
	}
	logger.Info("worker started; waiting for tasks", "worker", svc.worker.ID())
	<-ctx.Done()
	return svc.stop() // before the metrics server and the database, which close after
}
