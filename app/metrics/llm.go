package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/checkup-dev/checkup/workers/llm"
)

// llmMetrics are the model calls by stage (diagnose, action): how many, how many
// failed, were retries or repairs, how long they took and the tokens they cost.
type llmMetrics struct {
	calls    *prometheus.CounterVec
	errors   *prometheus.CounterVec
	retries  *prometheus.CounterVec
	repairs  *prometheus.CounterVec
	duration *prometheus.HistogramVec
	tokens   *prometheus.CounterVec
}

func newLLMMetrics() *llmMetrics {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "checkup", Subsystem: "llm", Name: name, Help: help},
			append([]string{"stage"}, labels...))
	}
	m := &llmMetrics{
		calls:   counter("calls_total", "HTTP calls to the model by stage, every try included."),
		errors:  counter("errors_total", "Model calls that failed (error status, timeout, no answer) by stage; a failed try may be retried."),
		retries: counter("retries_total", "Model calls that were retries of a failed try (429, 5xx, timeout), by stage."),
		repairs: counter("repairs_total", "Repair calls (one per unit whose answer failed validation), by stage."),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "checkup", Subsystem: "llm", Name: "call_duration_seconds",
			Help:    "Wall time of one HTTP call to the model, by stage.",
			Buckets: []float64{.1, .25, .5, 1, 2, 4, 8, 15, 30, 60, 120},
		}, []string{"stage"}),
		tokens: counter("tokens_total", "Tokens the model reported, by stage and kind (prompt, completion).", "kind"),
	}
	for _, stage := range []string{llm.StageDiagnose, llm.StageAction} {
		for _, v := range []*prometheus.CounterVec{m.calls, m.errors, m.retries, m.repairs} {
			v.WithLabelValues(stage)
		}
		m.tokens.WithLabelValues(stage, "prompt")
		m.tokens.WithLabelValues(stage, "completion")
	}
	return m
}

func (m *llmMetrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.calls, m.errors, m.retries, m.repairs, m.duration, m.tokens}
}

// ObserveLLMCall records one model call; it is an llm.Observer (llm.Config.Observer),
// safe for concurrent use and quick.
func (m *Metrics) ObserveLLMCall(c llm.Call) {
	l := m.llm
	l.calls.WithLabelValues(c.Stage).Inc()
	l.duration.WithLabelValues(c.Stage).Observe(c.Duration.Seconds())
	if c.Err != nil {
		l.errors.WithLabelValues(c.Stage).Inc()
	}
	if c.Try > 1 {
		l.retries.WithLabelValues(c.Stage).Inc()
	}
	if c.Repair {
		l.repairs.WithLabelValues(c.Stage).Inc()
	}
	l.tokens.WithLabelValues(c.Stage, "prompt").Add(float64(c.Usage.PromptTokens))
	l.tokens.WithLabelValues(c.Stage, "completion").Add(float64(c.Usage.CompletionTokens))
}
