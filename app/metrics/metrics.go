// Package metrics is Checkup's /metrics: one Prometheus registry built at start-up
// (never the global default one) holding the Go and process collectors, the task
// counts read at scrape time, and the collectors every part of the program records
// into — the worker, retention, the LLM client and the HTTP server. It is its own
// package because those parts live in several packages and processes (`app worker`
// has no web server), while the registry must be one.
package metrics

import (
	"cmp"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/retention"
)

// Config tunes Metrics.
type Config struct {
	// Stale is TASK_STALE_MS: a running task whose heartbeat is older counts as stale
	// in the queue depth. Required: app/config fills it.
	Stale time.Duration
	// ScrapeTimeout bounds the task count query of one scrape, so a slow or absent
	// database costs a scrape at most this long. Default 1 s.
	ScrapeTimeout time.Duration
	// Logger receives the errors of a scrape; nil discards them.
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	c.ScrapeTimeout = cmp.Or(c.ScrapeTimeout, time.Second)
	c.Logger = cmp.Or(c.Logger, slog.New(slog.DiscardHandler))
	return c
}

// Metrics is the registry and the collectors the rest of the program records into.
// Hand Worker to workers.Config.Metrics, Retention to retention.Config.Metrics,
// ObserveLLMCall to llm.Config.Observer and ObserveRequest to the HTTP middleware.
type Metrics struct {
	Worker    *workers.Metrics
	Retention *retention.Metrics

	registry *prometheus.Registry
	llm      *llmMetrics
	http     *httpMetrics
	logger   *slog.Logger
}

// New builds the registry with every collector registered. The task counts are read
// from pool at each scrape.
func New(pool *pgxpool.Pool, cfg Config) *Metrics {
	cfg = cfg.withDefaults()
	m := &Metrics{
		Worker:    workers.NewMetrics(),
		Retention: retention.NewMetrics(),
		registry:  prometheus.NewRegistry(),
		llm:       newLLMMetrics(),
		http:      newHTTPMetrics(),
		logger:    cfg.Logger,
	}
	// A fresh registry refuses a collector only when two share a name: a programming
	// error that every test start-up would show, hence Must.
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		newTaskCollector(pool, cfg.Stale, cfg.ScrapeTimeout),
	)
	for _, set := range []interface{ Collectors() []prometheus.Collector }{m.Worker, m.Retention, m.llm, m.http} {
		m.registry.MustRegister(set.Collectors()...)
	}
	return m
}

// Handler serves the registry in the Prometheus text format. A collector that fails
// (the task counts when the database is down) is logged and left out; the rest of the
// scrape is still served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(m.logger.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError,
		Registry:      m.registry,
	})
}
