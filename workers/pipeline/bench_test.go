package pipeline_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/checkup-dev/checkup/workers/cluster"
	"github.com/checkup-dev/checkup/workers/quality"
	"github.com/checkup-dev/checkup/workers/risk"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// runTasks runs one warm-up task and then n tasks over the sample with a, one after
// the other on one worker, and returns what each of the n took.
func runTasks(b *testing.B, a analyzer.Analyzer, opt pipeline.Options, n int) taskFigures {
	bb := setup(b)
	meter := newTaskMeter()
	pool := countedPool(b, bb.url, meter.statementsSent)
	w := workers.New(pool, pipeline.New(pool, a, workertest.Options(opt)), workertest.Complete(workers.Config{}), slog.New(meter))
	w.Start(context.Background())
	b.Cleanup(func() { require.NoError(b, w.Stop(context.Background())) })
	for i := range n + 1 {
		id := bb.uploadSample(b)
		select {
		case <-meter.finished:
		case <-time.After(5 * time.Minute):
			b.Fatal("the task did not finish")
		}
		task := bb.task(b, id)
		require.EqualValues(b, "completed", task.Status, task.Error)
		if i == 0 {
			meter.reset() // the warm-up opened the pool's connections and prepared its statements
		}
	}
	return meter.figures()
}

// reportFigures reports claim to finish, each stage's time, the CPU used and the statements
// sent, per task.
func reportFigures(b *testing.B, f taskFigures) {
	b.ReportMetric(float64(f.total.Microseconds())/1000, "ms/task")
	b.ReportMetric(100/f.total.Seconds(), "conversations/s")
	b.ReportMetric(float64(f.goCPU.Microseconds())/1000, "go-cpu-ms/task")
	b.ReportMetric(float64(f.pgCPU.Microseconds())/1000, "pg-cpu-ms/task")
	b.ReportMetric(f.statements, "statements/task")
	b.ReportMetric(f.roundTrips, "roundtrips/task")
	for _, s := range []string{"claimed", string(taskstate.Quality), string(taskstate.Risk), string(taskstate.Diagnosis),
		string(taskstate.Clustering), string(taskstate.Actions), string(taskstate.Finishing)} {
		b.ReportMetric(float64(f.stages[s].Microseconds())/1000, s+"-ms")
	}
}

// BenchmarkOfflineSample measures the offline analysis of the 100 sample conversations
// end to end, claim to finish, on the real worker and PostgreSQL. See BENCHMARKS.md.
func BenchmarkOfflineSample(b *testing.B) {
	reportFigures(b, runTasks(b, offline.New(offline.Options{}), pipeline.Options{}, b.N))
}

// BenchmarkOfflineSampleInMemory is the analysis work of BenchmarkOfflineSample
// without the database or the worker, on one goroutine: quality checks, risk
// screening, the offline diagnosis and its normalisation, and clustering, over the
// sample held in memory. It bounds what the database-backed run can reach per core.
func BenchmarkOfflineSampleInMemory(b *testing.B) {
	convs := sample(b)
	a := offline.New(offline.Options{})
	screener := risk.NewScreener()
	for b.Loop() {
		checker := quality.NewChecker(quality.Options{})
		var refs []cluster.FindingRef
		for seq, c := range convs {
			if checker.Check(c).Status != quality.Kept {
				continue
			}
			screener.Screen(c)
			res, err := a.Diagnose(context.Background(), c)
			require.NoError(b, err)
			d, err := pipeline.NormalizeDiagnosis(res.Value, c)
			require.NoError(b, err)
			for i, f := range d.Findings {
				refs = append(refs, cluster.FindingRef{Seq: seq + 1, Idx: i, Type: f.Type, Category: f.Category,
					Title: f.Title, Severity: f.Severity, Confidence: f.Confidence})
			}
		}
		cluster.Build(refs, len(convs))
	}
	b.ReportMetric(float64(len(convs)*b.N)/b.Elapsed().Seconds(), "conversations/s")
}

// BenchmarkLLMSample runs the sample with the LLM analyzer against llmtest answering
// every call after a fixed 200 ms, four calls in flight, and reports the wall time over
// the ideal: each model stage's calls in rounds of four, 200 ms a round (the Actions
// wait for every diagnosis, so their calls cannot share a round with it), plus the
// offline run's time outside the model calls. calls/4 × 200 ms, the bound that packs
// the two stages together, is reported as packed-ideal.
func BenchmarkLLMSample(b *testing.B) {
	const latency = 200 * time.Millisecond
	b.StopTimer()
	off := runTasks(b, offline.New(offline.Options{}), pipeline.Options{}, 3)
	offModel := off.stages[string(taskstate.Diagnosis)] + off.stages[string(taskstate.Actions)]
	b.StartTimer()

	var actionCalls atomic.Int64
	a, srv := llmAnalyzer(b, func(req llmtest.Request, _ int) llmtest.Reply {
		if req.Schema() == "action" {
			actionCalls.Add(1)
		}
		r := llmtest.Valid(req)
		r.Delay = latency
		return r
	})
	llmRun := runTasks(b, a, pipeline.Options{DiagnosisConcurrency: 4, ActionConcurrency: 4}, b.N)
	reportFigures(b, llmRun)
	tasks := b.N + 1 // with the warm-up task
	calls := srv.Stats().Completions / tasks
	actions := int(actionCalls.Load()) / tasks
	rounds := func(n int) time.Duration { return time.Duration((n+3)/4) * latency }
	outside := off.total - offModel
	ideal := rounds(calls-actions) + rounds(actions) + outside
	packed := time.Duration(calls)*latency/4 + outside
	b.ReportMetric(float64(calls), "calls/task")
	b.ReportMetric(float64(ideal.Microseconds())/1000, "ideal-ms")
	b.ReportMetric(llmRun.total.Seconds()/ideal.Seconds(), "wall/ideal")
	b.ReportMetric(llmRun.total.Seconds()/packed.Seconds(), "wall/packed-ideal")
}
