package pipeline_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/llm"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// outageScript answers validly until the request numbered from arrives, then 503 to
// everything while down holds.
func outageScript(from int, down *atomic.Bool) llmtest.Script {
	return func(req llmtest.Request, _ int) llmtest.Reply {
		if req.Seq == from {
			down.Store(true)
		}
		if down.Load() {
			return llmtest.ServiceUnavailable()
		}
		return llmtest.Valid(req)
	}
}

// outageAnalyzer is the LLM analyzer on script with two tries per call, so that each
// call's retries run out well inside an outage, as four tries do in a real one.
func outageAnalyzer(t *testing.T, script llmtest.Script) (*llm.Analyzer, *llmtest.Server) {
	t.Helper()
	srv := llmtest.New(t, llmtest.WithScript(script))
	a, err := llm.New(llm.Config{
		APIKey: "k", BaseURL: srv.URL(), Model: "gpt-4o-mini", MaxTries: 2,
		BackoffBase: 5 * time.Millisecond, BackoffMax: 10 * time.Millisecond,
	})
	require.NoError(t, err)
	return a, srv
}

// TestLLMOutageIsWaitedOut is the 25-second outage, scaled: the provider answers 503
// from the 20th request on, and every call's tries run out. The task stays running
// with its heartbeats going on and the page's "waiting since" stored, its model calls
// paused behind the breaker; once the provider answers a probe, the waiting units are
// done again, and the task completes with no conversation isolated and every
// completed call counted.
func TestLLMOutageIsWaitedOut(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	a, srv := outageAnalyzer(t, outageScript(20, &down))
	b := setup(t)
	id := b.uploadSample(t)
	b.startWorker(t, pipeline.New(b.pool, a, workertest.Options(pipeline.Options{
		DiagnosisConcurrency: 4, OutageMax: time.Minute, ProbeInterval: 20 * time.Millisecond,
	})), workers.Config{Heartbeat: 20 * time.Millisecond})

	var waiting dbsqlc.AnalysisTask
	waitFor(t, 30*time.Second, "the task to wait for the provider", func() bool {
		waiting = b.task(t, id)
		return waiting.ProviderDownSince != nil
	})
	require.EqualValues(t, "running", waiting.Status)
	require.Zero(t, waiting.Isolated)
	beats := map[time.Time]bool{}
	waitFor(t, 30*time.Second, "heartbeats during the outage", func() bool {
		if at := *b.task(t, id).HeartbeatAt; at.After(*waiting.HeartbeatAt) {
			beats[at] = true
		}
		return len(beats) >= 3
	})
	paused := srv.Stats().Requests
	waitFor(t, 30*time.Second, "probes during the outage", func() bool { return srv.Stats().Requests >= paused+3 })
	require.EqualValues(t, "running", b.task(t, id).Status)
	down.Store(false)

	task := b.waitTerminal(t, id, time.Minute)
	require.EqualValues(t, "completed", task.Status, task.Error)
	require.Zero(t, task.Isolated)
	require.Equal(t, int32(100), task.FirstPassValid)
	require.Nil(t, task.ProviderDownSince, "the page stops saying it waits")
	require.Positive(t, srv.Stats().ByStatus[503])
	b.requireUsageCounted(t, task, srv)
	require.Empty(t, b.warnings(t, id))
}

// TestLLMOutageLongerThanTheMaxFailsTheTask: a provider that never answers again
// fails the task after OutageMax with that reason, and no conversation is isolated
// for it.
func TestLLMOutageLongerThanTheMaxFailsTheTask(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	a, _ := outageAnalyzer(t, outageScript(20, &down))
	b := setup(t)
	id := b.uploadSample(t)
	start := time.Now()
	task := b.runTask(t, id, a, pipeline.Options{
		DiagnosisConcurrency: 4, OutageMax: 300 * time.Millisecond, ProbeInterval: 20 * time.Millisecond,
	})
	require.EqualValues(t, "failed", task.Status)
	require.Contains(t, task.Error, "The model provider did not answer from ")
	require.Contains(t, task.Error, "for 300ms (LLM_OUTAGE_MAX_MS), so the diagnosis stopped. Run it again once the provider answers.")
	require.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond)
	require.Zero(t, task.Isolated)
	require.NotNil(t, task.ProviderDownSince)
	for _, c := range b.report(t, id).Conversations {
		require.NotEqual(t, taskstate.DiagnosisIsolated, c.DiagnosisStatus, c.ExternalID)
	}
}

// TestLLMOutageOverAShutdownResumes: a worker that drains during an outage hands the
// task back with its waiting units undone; the next worker, with the provider back,
// does them and completes the task with none isolated.
func TestLLMOutageOverAShutdownResumes(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	a, srv := outageAnalyzer(t, outageScript(20, &down))
	b := setup(t)
	id := b.uploadSample(t)
	opt := pipeline.Options{DiagnosisConcurrency: 4, OutageMax: time.Minute, ProbeInterval: 20 * time.Millisecond}
	w := b.startWorker(t, pipeline.New(b.pool, a, workertest.Options(opt)), workers.Config{})
	waitFor(t, 30*time.Second, "the task to wait for the provider", func() bool { return b.task(t, id).ProviderDownSince != nil })

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, w.Stop(ctx))
	handed := b.task(t, id)
	require.EqualValues(t, "pending", handed.Status)
	require.Zero(t, handed.Isolated)

	down.Store(false)
	task := b.runTask(t, id, a, opt)
	require.EqualValues(t, "completed", task.Status, task.Error)
	require.Zero(t, task.Isolated)
	require.Equal(t, int32(100), task.FirstPassValid+task.Repaired)
	require.Nil(t, task.ProviderDownSince)
	b.requireUsageCounted(t, task, srv)
}
