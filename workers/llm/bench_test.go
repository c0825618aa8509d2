package llm_test

import (
	"context"
	"testing"
	"time"

	"github.com/checkup-dev/checkup/workers/llm"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
)

// BenchmarkDiagnoseConcurrency4 diagnoses the 100 sample conversations, 4 at a time,
// against a server that answers every call after 200ms, and reports the wall time
// over the ideal 100×200ms/4 = 5s as "wall/ideal" (target ≤ 1.10): the overhead of
// rendering, validation and the HTTP client. Run it with
//
//	go test ./workers/llm -run '^$' -bench DiagnoseConcurrency4 -benchtime 2x
func BenchmarkDiagnoseConcurrency4(b *testing.B) {
	const latency, workers = 200 * time.Millisecond, 4
	bb := setup(b, func(req llmtest.Request, _ int) llmtest.Reply {
		r := llmtest.Valid(req)
		r.Delay = latency
		return r
	}, llm.Config{})
	convs := readSample(b)
	ideal := time.Duration(len(convs)) * latency / workers

	for b.Loop() {
		for _, o := range diagnoseAll(context.Background(), bb.a, convs, workers) {
			if o.err != nil {
				b.Fatal(o.err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(ideal), "wall/ideal")
}
