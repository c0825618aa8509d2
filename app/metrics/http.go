package metrics

import (
	"cmp"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// httpMetrics are the requests served, by route template and status.
type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newHTTPMetrics() *httpMetrics {
	return &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "checkup", Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests served, by method, route template (/tasks/:id, never the raw URL) and status.",
		}, []string{"method", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "checkup", Subsystem: "http", Name: "request_duration_seconds",
			Help:    "Time to serve an HTTP request, by method and route template.",
			Buckets: prometheus.DefBuckets,
		}, []string{"method", "route"}),
	}
}

func (m *httpMetrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.requests, m.duration}
}

// ObserveRequest records one request. route must be the route's template (echo's
// c.Path()), so the label's values stay few; an empty one counts as "unmatched".
func (m *Metrics) ObserveRequest(method, route string, status int, took time.Duration) {
	route = cmp.Or(route, "unmatched")
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
	default:
		method = "other" // a client's made-up method must not make a series of its own
	}
	m.http.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.http.duration.WithLabelValues(method, route).Observe(took.Seconds())
}
