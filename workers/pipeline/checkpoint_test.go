package pipeline_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// TestCheckpointSeesCancel: a stored unit is the task's heartbeat, so it must see a
// cancel as the heartbeat does. The cancel is requested in the table alone (no
// notification wakes the worker, and its periodic heartbeat is minutes away) partway
// through diagnosis and through the Actions: the next checkpoint sees it and the task
// ends canceled before the stage's last unit. Offline diagnoses are handed to the
// checkpointer without waiting for it, so a diagnosis after the cancel waits for the
// task's context to end (for a while at most) rather than racing the writer through
// the rest of the sample.
func TestCheckpointSeesCancel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		arm   func(p *probe, cancel func())
		calls func(p *probe) int
		all   int
	}{
		{"diagnosis", func(p *probe, cancel func()) {
			p.onDiagnose = func(ctx context.Context, _ transcript.Conversation) error {
				cancel()
				afterCancel(ctx, p)
				return nil
			}
		}, (*probe).diagnoses, 100},
		{"actions", func(p *probe, cancel func()) {
			p.onAction = func(context.Context, analyzer.ClusterBrief) error { cancel(); return nil }
		}, (*probe).actionCalls, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			id := b.uploadSample(t)
			p := offlineProbe()
			var calls atomic.Int32
			tc.arm(p, func() {
				if calls.Add(1) == 3 {
					_, err := b.pool.Exec(context.Background(),
						`UPDATE analysis_task SET cancel_requested_at = now() WHERE id = $1`, id)
					require.NoError(t, err)
				}
			})
			b.startWorker(t, pipeline.New(b.pool, p, workertest.Options(pipeline.Options{DiagnosisConcurrency: 1, ActionConcurrency: 1})),
				workers.Config{Stale: 10 * time.Minute})
			task := b.waitTerminal(t, id, time.Minute)
			require.EqualValues(t, "canceled", task.Status)
			require.Less(t, tc.calls(p), tc.all, "the cancel was seen before the stage's last unit")
		})
	}
}

// afterCancel waits, in a diagnosis made after the third, until the task's context
// ends or ten seconds pass: a checkpoint that did not see the cancel leaves the
// diagnoses crawling, and the test runs out of time.
func afterCancel(ctx context.Context, p *probe) {
	if p.diagnoses() <= 3 {
		return
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
	}
}
