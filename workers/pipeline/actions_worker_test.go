package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// TestActionFailuresAreIsolated: two clusters' Action calls fail, the later candidate
// first; the others are written and ranked 1..N, the task ends partial, and the
// failures become warnings with their context, in candidate order.
func TestActionFailuresAreIsolated(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.uploadSample(t)
	p := offlineProbe()
	laterFailed := make(chan struct{})
	p.onAction = func(ctx context.Context, brief analyzer.ClusterBrief) error {
		switch brief.Category {
		case "unconfirmed_write": // an early candidate: fails after the later one
			select {
			case <-laterFailed:
			case <-ctx.Done():
			}
			return errors.New("model unavailable after 4 tries")
		case "long_conversation": // a later candidate
			defer close(laterFailed)
			return fmt.Errorf("%w: fixLocation missing", analyzer.ErrInvalidOutput)
		}
		return nil
	}
	task := b.runTask(t, id, p, pipeline.Options{ActionConcurrency: 4})
	require.EqualValues(t, "partial", task.Status)
	rows := b.report(t, id)
	require.Contains(t, task.Error, fmt.Sprintf("2 of %d Actions could not be written", len(rows.Actions)))

	ranked := requireRanked(t, rows.Actions)
	require.Len(t, ranked, len(rows.Actions)-2, "the other clusters are written and ranked")
	var failed []string
	for _, a := range rows.Actions {
		if a.Status == "failed" {
			failed = append(failed, a.ClusterCategory)
			require.NotEmpty(t, a.Error)
		}
	}
	require.Equal(t, []string{"unconfirmed_write", "long_conversation"}, failed, "failures in candidate order")
	require.Less(t, slices.Index(p.completions, "Conversation is unusually long"),
		slices.Index(p.completions, "Agent changes data without the user's explicit confirmation"), "the later candidate failed first")

	var warned []string
	for _, w := range b.warnings(t, id) {
		if w.Stage == taskstate.Actions {
			warned = append(warned, w.Message)
		}
	}
	require.Len(t, warned, 2)
	require.Contains(t, warned[0], `"Agent changes data without the user's explicit confirmation"`)
	require.Contains(t, warned[0], "13 conversations")
	require.Contains(t, warned[0], "model unavailable after 4 tries")
	require.Contains(t, warned[1], `"Conversation is unusually long"`)
	require.Contains(t, warned[1], "fixLocation missing")
}

// TestActionRanksIgnoreCompletionOrder runs the Actions four at a time with latencies
// that make them finish out of order: the stored ranks are those of a run that wrote
// them one at a time.
func TestActionRanksIgnoreCompletionOrder(t *testing.T) {
	t.Parallel()
	serial := setup(t)
	serialID := serial.uploadSample(t)
	sp := offlineProbe()
	require.EqualValues(t, "completed", serial.runTask(t, serialID, sp, pipeline.Options{ActionConcurrency: 1}).Status)

	b := setup(t)
	id := b.uploadSample(t)
	p := offlineProbe()
	p.onAction = func(ctx context.Context, brief analyzer.ClusterBrief) error {
		// A latency of 0–45 ms fixed by the title: a stand-in for the network.
		h := fnv.New32a()
		h.Write([]byte(brief.Title))
		select {
		case <-time.After(time.Duration(h.Sum32()%10) * 5 * time.Millisecond):
		case <-ctx.Done():
		}
		return nil
	}
	task := b.runTask(t, id, p, pipeline.Options{ActionConcurrency: 4})
	require.EqualValues(t, "completed", task.Status, task.Error)
	require.NotEqual(t, sp.completions, p.completions, "the calls finished in another order")
	require.Equal(t, requireRanked(t, serial.report(t, serialID).Actions), requireRanked(t, b.report(t, id).Actions))
	require.Equal(t, serial.resultOf(t, serialID), b.resultOf(t, id))
}

// TestConcurrencyCap measures the analyzer calls in flight: never more than the
// configured cap, and the cap is used; an invalid ACTION_CONCURRENCY, corrected by
// config.Load, leaves a warning on the task.
func TestConcurrencyCap(t *testing.T) {
	t.Parallel()
	// config.Load corrects ACTION_CONCURRENCY=9 from the environment to 2 and says so;
	// the pipeline repeats that on the task, in English beside its message.
	const fromEnv = `ACTION_CONCURRENCY="9": must be a whole number from 1 to 4; using 2`
	corrected := locale.Msg("task_warning.setting_corrected", "Setting", "ACTION_CONCURRENCY", "Value", `"9"`,
		"Problem", locale.Msg("task_warning.setting_range", "Min", "1", "Max", "4", "Fallback", "2"))
	for _, tc := range []struct {
		name          string
		setting, want int
		corrected     []locale.Text // config.Config.Corrected
		warning       string
	}{
		{"1", 1, 1, nil, ""}, {"3", 3, 3, nil, ""}, {"4", 4, 4, nil, ""},
		{"9 from the environment", 2, 2, []locale.Text{corrected}, fromEnv},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			id := b.uploadSample(t)
			p := offlineProbe()
			// Hold the first calls until the cap is reached once, so the peak shows the
			// cap is used as well as never passed.
			p.onAction = func(ctx context.Context, _ analyzer.ClusterBrief) error {
				return waitPeak(ctx, &p.peak, tc.want)
			}
			p.onDiagnose = func(ctx context.Context, _ transcript.Conversation) error {
				return waitPeak(ctx, &p.diagPeak, tc.want)
			}
			task := b.runTask(t, id, p, pipeline.Options{
				ActionConcurrency: tc.setting, DiagnosisConcurrency: tc.want, SettingWarnings: tc.corrected,
			})
			require.EqualValues(t, "completed", task.Status, task.Error)
			require.Equal(t, int32(tc.want), p.peak.Load(), "Action calls in flight")
			require.Equal(t, int32(tc.want), p.diagPeak.Load(), "diagnosis calls in flight")
			require.Equal(t, tc.want, storedConfig(t, task).ActionConcurrency)
			var warnings []string
			for _, w := range b.warnings(t, id) {
				require.EqualValues(t, "settings", w.Stage)
				require.Equal(t, "ACTION_CONCURRENCY", w.Scope)
				warnings = append(warnings, w.Message)
			}
			if tc.warning == "" {
				require.Empty(t, warnings)
			} else {
				require.Equal(t, []string{tc.warning}, warnings)
			}
		})
	}
}

// waitPeak holds a call until peak has reached want, failing it after a while: a
// pipeline that never has want calls in flight fails the test instead of hanging.
func waitPeak(ctx context.Context, peak *atomic.Int32, want int) error {
	deadline := time.Now().Add(10 * time.Second)
	for peak.Load() < int32(want) {
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d calls in flight, never %d", peak.Load(), want)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}

// TestHeartbeatThatCannotBePersistedFailsTheTask breaks every statement that refreshes
// the heartbeat — the fenced touch that begins each checkpoint, and the heartbeat
// itself — once the second Action call starts: the refresh after that cluster fails
// (its checkpoint, then the heartbeat of a unit that stored nothing), the error
// escapes, and the worker fails the task with a sentence for its owner. The first
// cluster's checkpoint was stored before.
func TestHeartbeatThatCannotBePersistedFailsTheTask(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.uploadSample(t)
	p := offlineProbe()
	var calls atomic.Int32
	p.onAction = func(ctx context.Context, _ analyzer.ClusterBrief) error {
		if calls.Add(1) == 2 {
			// A fault injected for the test: refreshing the heartbeat fails as a full
			// disk would; the task's end still works.
			_, err := b.pool.Exec(context.Background(), `
				CREATE FUNCTION test_fail_heartbeat() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN
					IF current_query() LIKE '-- name: HeartbeatTask %'
						OR current_query() LIKE '-- name: TouchTaskLease %' THEN
						RAISE EXCEPTION 'could not extend file: No space left on device';
					END IF;
					RETURN NEW;
				END $$;
				CREATE TRIGGER test_fail_heartbeat BEFORE UPDATE ON analysis_task
					FOR EACH ROW EXECUTE FUNCTION test_fail_heartbeat();`)
			require.NoError(t, err)
		}
		return nil
	}
	// The periodic heartbeat is minutes away: the refresh after the unit is what fails.
	w := workers.New(b.pool, pipeline.New(b.pool, p, workertest.Options(pipeline.Options{ActionConcurrency: 1})),
		workertest.Complete(workers.Config{Stale: 10 * time.Minute}), testLogger(t))
	w.Start(context.Background())
	t.Cleanup(func() { require.NoError(t, w.Stop(context.Background())) })
	task := b.waitTerminal(t, id, time.Minute)
	require.EqualValues(t, "failed", task.Status)
	require.Contains(t, task.Error, "could not be saved")
	require.Equal(t, 2, p.actionCalls(), "no cluster starts after the refresh failed")
	rows := b.report(t, id)
	require.Len(t, rows.Actions, 1, "the first cluster's checkpoint was stored; the second's failed with its refresh")
	require.Equal(t, 1.0, counter(w.Metrics().HeartbeatFailures))
}

func counter(c prometheus.Counter) float64 {
	var m dto.Metric
	_ = c.Write(&m)
	return m.GetCounter().GetValue()
}
