package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/metrics"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/llm"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/retention"
)

// stopMargin is added to SHUTDOWN_GRACE_MS when waiting for the services to stop: the
// time to hand the task back after the grace.
const stopMargin = 15 * time.Second

// service is the shape of every background component: Start returns once it runs,
// Stop once it has stopped (or ctx ended first). Both are safe to call twice.
type service interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
}

// services is what `serve` and `worker` run beside their main job, assembled in this
// one place from the settings: the metrics every part records into, retention, and the
// worker (embedded in serve unless EMBEDDED_WORKER_ENABLED=false).
type services struct {
	metrics   *metrics.Metrics
	retention *retention.Service
	worker    *workers.Worker // nil when this process runs no worker
	running   []service       // in start order
	grace     time.Duration
}

// newServices builds the services; withWorker adds the worker, talking (printing every
// stage, unit and warning) when talk is set.
func newServices(pool *pgxpool.Pool, cfg config.Config, logger *slog.Logger, withWorker, talk bool) (*services, error) {
	m := metrics.New(pool, metrics.Config{Stale: cfg.TaskStale, Logger: logger})
	s := &services{
		metrics:   m,
		retention: retention.New(pool, retention.Config{Days: cfg.RetentionDays, Metrics: m.Retention}, logger),
		grace:     cfg.ShutdownGrace,
	}
	if withWorker {
		handler, err := newHandler(pool, cfg, s.metrics.ObserveLLMCall, logger)
		if err != nil {
			return nil, err
		}
		s.worker = workers.New(pool, handler, workerConfig(cfg, talk, s.metrics.Worker), logger)
	}
	return s, nil
}

// workerConfig maps the settings onto the worker's configuration.
func workerConfig(cfg config.Config, talk bool, m *workers.Metrics) workers.Config {
	return workers.Config{
		ID:            workers.ProcessID(),
		Poll:          cfg.WorkerPoll,
		Stale:         cfg.TaskStale,
		Heartbeat:     cfg.TaskHeartbeat,
		MaxAttempts:   cfg.TaskMaxAttempts,
		ShutdownGrace: cfg.ShutdownGrace,
		Talk:          talk,
		Metrics:       m,
	}
}

// newHandler returns the task handler every worker of this binary runs: the diagnosis
// pipeline, with the LLM analyzer when OPENAI_API_KEY is set and the offline one
// otherwise. observe is told about every model call (the metrics).
func newHandler(pool *pgxpool.Pool, cfg config.Config, observe llm.Observer, logger *slog.Logger) (workers.Handler, error) {
	a, err := newAnalyzer(cfg, observe, logger)
	if err != nil {
		return nil, err
	}
	return pipeline.New(pool, a, pipeline.Options{
		MinConversations:     cfg.MinConversations,
		MaxDiagnosed:         cfg.MaxDiagnosed,
		DiagnosisConcurrency: cfg.DiagnosisConcurrency,
		ActionConcurrency:    cfg.ActionConcurrency,
		SettingWarnings:      cfg.Corrected,
		OutageMax:            cfg.LLMOutageMax,
	}), nil
}

// newAnalyzer chooses the analyzer: the model at OPENAI_BASE_URL when an API key is
// set, the offline rules otherwise.
func newAnalyzer(cfg config.Config, observe llm.Observer, logger *slog.Logger) (analyzer.Analyzer, error) {
	if !cfg.UseLLM() {
		return offline.New(offline.Options{}), nil
	}
	a, err := llm.New(llm.Config{
		APIKey: cfg.OpenAIAPIKey, BaseURL: cfg.OpenAIBaseURL, Model: cfg.OpenAIModel,
		JSONMode: cfg.LLMJSONMode, Timeout: cfg.LLMTimeout, MaxPromptChars: cfg.LLMMaxPromptChars,
		Logger: logger, Observer: observe,
	})
	if err != nil {
		return nil, fmt.Errorf("the LLM analyzer cannot start (check the OPENAI_* and LLM_* settings): %w", err)
	}
	return a, nil
}

// serveMetrics serves /metrics and /healthz apart at addr (METRICS_ADDR) as a part of
// life; an empty addr serves nothing here.
func (s *services) serveMetrics(addr string, life *lifecycle) error {
	if addr == "" {
		return nil
	}
	stop, err := s.metrics.Serve(addr)
	if err != nil {
		return err
	}
	life.add("metrics server", func() error { stop(); return nil })
	return nil
}

// start starts retention and the worker. A graceful shutdown is stop's: ctx ending
// stops nothing by itself.
func (s *services) start(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	all := []service{s.retention}
	if s.worker != nil {
		all = append(all, s.worker)
	}
	for _, svc := range all {
		if err := svc.Start(ctx); err != nil {
			return errors.Join(err, s.stop())
		}
		s.running = append(s.running, svc)
	}
	return nil
}

// stop stops what start started, the last started first, waiting at most the shutdown
// grace and the time to hand the task back.
func (s *services) stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), s.grace+stopMargin)
	defer cancel()
	var errs []error
	for i := len(s.running) - 1; i >= 0; i-- {
		if err := s.running[i].Stop(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%T: %w", s.running[i], err))
		}
	}
	s.running = nil
	if len(errs) > 0 {
		return fmt.Errorf("a service did not stop in time; a running task is taken over once its heartbeat is stale: %w", errors.Join(errs...))
	}
	return nil
}
