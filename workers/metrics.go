package workers

import "github.com/prometheus/client_golang/prometheus"

// Metrics is what the worker records for /metrics: how often it claims, takes over,
// loses leases and hands tasks back, how fast a new task is picked up, and how long
// tasks take. Build it with NewMetrics; app/metrics registers its Collectors on the
// application's own registry (never the global default one).
type Metrics struct {
	Claims            prometheus.Counter
	Takeovers         prometheus.Counter
	LostLeases        prometheus.Counter
	HandBacks         prometheus.Counter
	HeartbeatFailures prometheus.Counter
	// WakeLatency is the time from a task's creation (the start of the transaction
	// that stored its upload) to its first claim.
	WakeLatency prometheus.Histogram
	// TaskDuration is the time from claim to end of one attempt, by terminal status.
	TaskDuration *prometheus.HistogramVec
}

// NewMetrics builds the worker's metrics, not yet registered anywhere.
func NewMetrics() *Metrics {
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Namespace: "checkup", Subsystem: "worker", Name: name, Help: help})
	}
	return &Metrics{
		Claims:            counter("claims_total", "Tasks claimed, first claims and takeovers alike."),
		Takeovers:         counter("takeovers_total", "Claims that took a task over from a worker whose heartbeat went stale."),
		LostLeases:        counter("lost_leases_total", "Tasks this worker stopped because another worker took them over or they ended elsewhere."),
		HandBacks:         counter("hand_backs_total", "Tasks handed back at shutdown for another worker to resume."),
		HeartbeatFailures: counter("heartbeat_failures_total", "Heartbeats that could not be saved, each stopping its task."),
		WakeLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "checkup", Subsystem: "worker", Name: "wake_latency_seconds",
			Help:    "Time from a task's creation (the start of the transaction that stored its upload) to its first claim.",
			Buckets: []float64{.005, .01, .02, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}),
		TaskDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "checkup", Subsystem: "worker", Name: "task_duration_seconds",
			Help:    "Time from claim to the end of a task, by terminal status.",
			Buckets: prometheus.ExponentialBuckets(1, 2.5, 10),
		}, []string{"status"}),
	}
}

// Collectors lists every metric, for app/metrics to register.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.Claims, m.Takeovers, m.LostLeases, m.HandBacks,
		m.HeartbeatFailures, m.WakeLatency, m.TaskDuration}
}
