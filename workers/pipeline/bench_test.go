package pipeline_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/pipeline"
)

// stageClock is a slog.Handler that keeps when each task entered each stage, from the
// worker's "stage" records, and when it was claimed and finished. finished receives
// one value per finished task, so the benchmark waits without polling the database
// alongside the work it measures.
type stageClock struct {
	mu       sync.Mutex
	events   []stageEvent
	finished chan struct{}
}

type stageEvent struct {
	at    time.Time
	stage string // a stage, or "claimed" / "finished"
}

func (c *stageClock) Enabled(context.Context, slog.Level) bool { return true }
func (c *stageClock) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c *stageClock) WithGroup(string) slog.Handler            { return c }

func (c *stageClock) Handle(_ context.Context, r slog.Record) error {
	name := ""
	switch r.Message {
	case "task claimed":
		name = "claimed"
	case "task finished":
		name = "finished"
	case "stage":
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "stage" {
				name = a.Value.String()
			}
			return true
		})
	}
	if name != "" {
		c.mu.Lock()
		c.events = append(c.events, stageEvent{at: r.Time, stage: name})
		c.mu.Unlock()
	}
	if name == "finished" {
		c.finished <- struct{}{}
	}
	return nil
}

// durations returns how long each stage took, summed over the tasks, and claim to
// finish in total; call it when no task runs.
func (c *stageClock) durations() (map[string]time.Duration, time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	stages := map[string]time.Duration{}
	var total time.Duration
	var claimed time.Time
	for i, e := range c.events {
		switch e.stage {
		case "claimed":
			claimed = e.at
		case "finished":
			total += e.at.Sub(claimed)
		}
		if e.stage != "finished" && i+1 < len(c.events) {
			stages[e.stage] += c.events[i+1].at.Sub(e.at)
		}
	}
	c.events = nil
	return stages, total
}

// runTasks runs n tasks over the sample with a, one after the other on one worker,
// and returns the time of each stage and claim to finish per task, and the
// statements and round trips the worker sent per task.
func runTasks(b *testing.B, a analyzer.Analyzer, opt pipeline.Options, n int) (map[string]time.Duration, time.Duration, taskStatements) {
	bb := setup(b)
	clock := &stageClock{finished: make(chan struct{}, 1)}
	logger := slog.New(clock)
	counter := &statementCounter{}
	pool := countedPool(b, bb.url, counter)
	w := workers.New(pool, pipeline.New(pool, a, opt), workers.Config{}, logger)
	w.Start(context.Background())
	b.Cleanup(func() { require.NoError(b, w.Stop(context.Background())) })
	for range n {
		id := bb.uploadSample(b)
		select {
		case <-clock.finished:
		case <-time.After(5 * time.Minute):
			b.Fatal("the task did not finish")
		}
		task := bb.task(b, id)
		require.Equal(b, "completed", task.Status, task.Error)
	}
	stages, total := clock.durations()
	for s := range stages {
		stages[s] /= time.Duration(n)
	}
	sent := taskStatements{
		statements: float64(counter.statements.Load()) / float64(n),
		roundTrips: float64(counter.roundTrips.Load()) / float64(n),
	}
	return stages, total / time.Duration(n), sent
}

// taskStatements is what the worker sent the database per task.
type taskStatements struct{ statements, roundTrips float64 }

// reportTimes reports claim to finish, each stage's time and the statements sent, per
// task.
func reportTimes(b *testing.B, stages map[string]time.Duration, total time.Duration, sent taskStatements) {
	b.ReportMetric(float64(total.Microseconds())/1000, "ms/task")
	b.ReportMetric(sent.statements, "statements/task")
	b.ReportMetric(sent.roundTrips, "roundtrips/task")
	b.ReportMetric(100/total.Seconds(), "conversations/s")
	for _, s := range []string{"claimed", pipeline.StageQuality, pipeline.StageRisk, pipeline.StageDiagnosis,
		pipeline.StageClustering, pipeline.StageActions, pipeline.StageFinishing} {
		b.ReportMetric(float64(stages[s].Microseconds())/1000, s+"-ms")
	}
}

// BenchmarkOfflineSample measures the offline analysis of the 100 sample conversations
// end to end, claim to finish, on the real worker and PostgreSQL. See BENCHMARKS.md.
func BenchmarkOfflineSample(b *testing.B) {
	stages, total, sent := runTasks(b, offline.New(offline.Options{}), pipeline.Options{}, b.N)
	reportTimes(b, stages, total, sent)
}

// BenchmarkOfflineSampleInMemory is the analysis work of BenchmarkOfflineSample
// without the database or the worker, on one goroutine: quality checks, risk
// screening, the offline diagnosis and its normalisation, and clustering, over the
// sample held in memory. It bounds what the database-backed run can reach per core.
func BenchmarkOfflineSampleInMemory(b *testing.B) {
	convs := sample(b)
	a := offline.New(offline.Options{})
	screener := pipeline.NewRiskScreener()
	for b.Loop() {
		checker := pipeline.NewQualityChecker(pipeline.QCOptions{})
		var refs []pipeline.FindingRef
		for seq, c := range convs {
			if checker.Check(c).Status != pipeline.QCKept {
				continue
			}
			screener.Screen(c)
			res, err := a.Diagnose(context.Background(), c)
			require.NoError(b, err)
			d, err := pipeline.NormalizeDiagnosis(res.Value, c)
			require.NoError(b, err)
			for i, f := range d.Findings {
				refs = append(refs, pipeline.FindingRef{Seq: seq + 1, Idx: i, Type: f.Type, Category: f.Category,
					Title: f.Title, Severity: f.Severity, Confidence: f.Confidence})
			}
		}
		pipeline.BuildClusters(refs, len(convs))
	}
	b.ReportMetric(float64(len(convs)*b.N)/b.Elapsed().Seconds(), "conversations/s")
}

// BenchmarkLLMSample runs the sample with the LLM analyzer against llmtest answering
// every call after a fixed 200 ms, four calls in flight, and reports the wall time over
// the ideal: calls × 200 ms / 4 plus the offline run's time outside the model calls.
func BenchmarkLLMSample(b *testing.B) {
	const latency = 200 * time.Millisecond
	b.StopTimer()
	offStages, offTotal, _ := runTasks(b, offline.New(offline.Options{}), pipeline.Options{}, 3)
	offModel := offStages[pipeline.StageDiagnosis] + offStages[pipeline.StageActions]
	b.StartTimer()

	a, srv := llmAnalyzer(b, func(req llmtest.Request, _ int) llmtest.Reply {
		r := llmtest.Valid(req)
		r.Delay = latency
		return r
	})
	stages, total, sent := runTasks(b, a, pipeline.Options{DiagnosisConcurrency: 4, ActionConcurrency: 4}, b.N)
	reportTimes(b, stages, total, sent)
	calls := srv.Stats().Completions / b.N
	ideal := time.Duration(calls)*latency/4 + offTotal - offModel
	b.ReportMetric(float64(calls), "calls/task")
	b.ReportMetric(float64(ideal.Microseconds())/1000, "ideal-ms")
	b.ReportMetric(total.Seconds()/ideal.Seconds(), "wall/ideal")
}
