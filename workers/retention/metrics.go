package retention

import "github.com/prometheus/client_golang/prometheus"

// Metrics is what retention records for /metrics. Build it with NewMetrics;
// app/metrics registers its Collectors on the application's own registry.
type Metrics struct {
	// DeletedTasks counts the finished tasks deleted (their rows went with them).
	DeletedTasks prometheus.Counter
	// Runs counts the runs of this instance by outcome: deleted, nothing, skipped
	// (another instance held the lock) or failed.
	Runs *prometheus.CounterVec
}

// NewMetrics builds the retention metrics, not yet registered anywhere.
func NewMetrics() *Metrics {
	m := &Metrics{
		DeletedTasks: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "checkup", Subsystem: "retention", Name: "deleted_tasks_total",
			Help: "Finished tasks deleted by retention (RETENTION_DAYS), with all their rows.",
		}),
		Runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "checkup", Subsystem: "retention", Name: "runs_total",
			Help: "Retention runs of this instance by outcome: deleted, nothing, skipped (another instance held the lock) or failed.",
		}, []string{"outcome"}),
	}
	for _, o := range []string{runDeleted, runNothing, runSkipped, runFailed} {
		m.Runs.WithLabelValues(o)
	}
	return m
}

// Collectors lists every metric, for app/metrics to register.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.DeletedTasks, m.Runs}
}
