package pipeline_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// interrupt runs the task with p on a worker that is stopped gracefully once stopWhen
// reports true (checked before each analyzer call): the units in flight finish and are
// stored, no new one starts, and the task is handed back. A call that finds stopWhen
// true waits until the worker drains, so no unit starts after it however fast the
// units are.
func (b *bundle) interrupt(t *testing.T, id uuid.UUID, p *probe, stopWhen func() bool) {
	t.Helper()
	draining := &drainSignal{Handler: testLogger(t).Handler(), drained: make(chan struct{}), once: &sync.Once{}}
	w := workers.New(b.pool, pipeline.New(b.pool, p, workertest.Options(pipeline.Options{})), workertest.Complete(workers.Config{}), slog.New(draining))
	stopped := make(chan struct{})
	var once sync.Once
	stop := func() {
		if !stopWhen() {
			return
		}
		once.Do(func() {
			go func() {
				defer close(stopped)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				require.NoError(t, w.Stop(ctx))
			}()
		})
		select {
		case <-draining.drained:
		case <-time.After(time.Minute):
			t.Error("the worker did not drain")
		}
	}
	p.onDiagnose = func(context.Context, transcript.Conversation) error { stop(); return nil }
	p.onAction = func(context.Context, analyzer.ClusterBrief) error { stop(); return nil }
	w.Start(context.Background())
	select {
	case <-stopped:
	case <-time.After(time.Minute):
		t.Fatal("the worker did not stop")
	}
	require.EqualValues(t, "pending", b.task(t, id).Status, "handed back")
}

// drainSignal passes the worker's records on and closes drained when the worker says
// it is draining: it starts no new unit from then on.
type drainSignal struct {
	slog.Handler
	drained chan struct{}
	once    *sync.Once // shared by the handlers derived with WithAttrs
}

func (d *drainSignal) Handle(ctx context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "shutting down: no new unit starts") {
		d.once.Do(func() { close(d.drained) })
	}
	return d.Handler.Handle(ctx, r)
}

func (d *drainSignal) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &drainSignal{Handler: d.Handler.WithAttrs(attrs), drained: d.drained, once: d.once}
}

func (d *drainSignal) WithGroup(name string) slog.Handler {
	return &drainSignal{Handler: d.Handler.WithGroup(name), drained: d.drained, once: d.once}
}

// resultOf is what a finished task stored, without ids, for comparing two runs.
func (b *bundle) resultOf(t *testing.T, id uuid.UUID) string {
	t.Helper()
	rows := b.report(t, id)
	var s strings.Builder
	seqs := clusterSeqs(rows)
	for _, c := range rows.Clusters {
		fmt.Fprintf(&s, "cluster %d %s %s %q %v %.2f\n", c.Idx, c.Type, c.Category, c.Title, seqs[c.Idx], c.PriorityScore)
	}
	for _, a := range rows.Actions {
		fmt.Fprintf(&s, "action %d cluster %d rank %v %s %s\n", a.CandidateIndex, a.ClusterIdx, *a.Rank, a.Status, a.Action)
	}
	fmt.Fprintf(&s, "findings %d\n", len(rows.Findings))
	// Drivers: counted as the diagnoses are stored when one run diagnoses every
	// conversation, read back after diagnosis when a run resumed it.
	for _, d := range rows.Drivers {
		fmt.Fprintf(&s, "driver %s %q %d/%d p %v q %v examples %v\n", d.Kind, d.Feature, d.Failed, d.Succeeded, d.PValue, d.QValue, d.ExampleSeqs)
		if d.ExampleTurn != nil && d.ExampleQuote != nil {
			fmt.Fprintf(&s, "driver %q written at turn %d: %q\n", d.Feature, *d.ExampleTurn, *d.ExampleQuote)
		}
	}
	// And every conversation of each driver, as the conversation list reads them.
	members, err := b.pool.Query(context.Background(), `SELECT idx, conversation_seqs FROM task_driver
		WHERE task_id = $1 ORDER BY idx`, id)
	require.NoError(t, err)
	for members.Next() {
		var idx int32
		var seqs []int32
		require.NoError(t, members.Scan(&idx, &seqs))
		fmt.Fprintf(&s, "driver %d conversations %v\n", idx, seqs)
	}
	require.NoError(t, members.Err())
	return s.String()
}

// TestResumeSkipsFinishedUnits interrupts a task between units, during diagnosis and
// during Actions, and resumes it with another worker: no finished unit is done again,
// and the result is the same as an uninterrupted run's.
func TestResumeSkipsFinishedUnits(t *testing.T) {
	t.Parallel()
	clean := setup(t)
	cleanID := clean.uploadSample(t)
	require.EqualValues(t, "completed", clean.runTask(t, cleanID, offlineProbe(), pipeline.Options{}).Status)
	want := clean.resultOf(t, cleanID)
	require.Contains(t, want, "conversations [", "the sample has failure drivers to compare")

	for _, tc := range []struct {
		name     string
		stopWhen func(p *probe) bool
		// partway checks that the interruption left the stage half done.
		partway func(t *testing.T, diagnosed, actions int)
	}{
		{"diagnosis", func(p *probe) bool { return p.diagnoses() >= 30 }, func(t *testing.T, diagnosed, actions int) {
			require.Less(t, diagnosed, 100)
			require.Zero(t, actions)
		}},
		{"actions", func(p *probe) bool { return p.actionCalls() >= 3 }, func(t *testing.T, diagnosed, actions int) {
			require.Equal(t, 100, diagnosed)
			require.Positive(t, actions)
			require.Less(t, actions, strings.Count(want, "action "))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			id := b.uploadSample(t)
			stages := b.logStages(t)
			first := offlineProbe()
			b.interrupt(t, id, first, func() bool { return tc.stopWhen(first) })
			rows := b.report(t, id)
			diagnosed := 0
			for _, c := range rows.Conversations {
				if c.DiagnosisStatus == taskstate.DiagnosisDone {
					diagnosed++
				}
			}
			require.Equal(t, first.diagnoses(), diagnosed, "every unit started before the stop was finished and stored")
			require.Len(t, rows.Actions, first.actionCalls())
			tc.partway(t, diagnosed, len(rows.Actions))

			second := offlineProbe()
			task := b.runTask(t, id, second, pipeline.Options{})
			require.EqualValues(t, "completed", task.Status, task.Error)
			require.Equal(t, int32(2), task.Attempt)
			require.Equal(t, 100-diagnosed, second.diagnoses(), "the resumed task skips the diagnosed conversations")
			for conv, n := range second.diagnosed {
				require.Equal(t, 1, n+first.diagnosed[conv], "conversation %s diagnosed once in all", conv)
			}
			for title, n := range second.actions {
				require.Equal(t, 1, n+first.actions[title], "the Action of %q written once in all", title)
			}
			require.Equal(t, int32(100), task.FirstPassValid, "counters are not counted twice")
			require.Equal(t, want, b.resultOf(t, id), "the same result as an uninterrupted run")
			require.Equal(t, []string{"quality", "risk", "diagnosis", "learning", "clustering", "actions", "finishing"}, stages(),
				"the resumed attempt goes on from the stage it found, never back")
		})
	}
}

// logStages records every stage the bundle's tasks are moved to, in order, by a
// trigger on the task table, and returns a function that reads them: a later attempt
// may leave a stage's progress as it found it, so its last row shows only the end.
func (b *bundle) logStages(t *testing.T) func() []string {
	t.Helper()
	ctx := context.Background()
	_, err := b.pool.Exec(ctx, `
		CREATE TABLE stage_log (n serial PRIMARY KEY, stage text NOT NULL);
		CREATE FUNCTION log_stage() RETURNS trigger LANGUAGE plpgsql AS
			$$BEGIN INSERT INTO stage_log (stage) VALUES (NEW.stage); RETURN NEW; END$$;
		CREATE TRIGGER log_stage AFTER UPDATE OF stage ON analysis_task
			FOR EACH ROW WHEN (OLD.stage IS DISTINCT FROM NEW.stage) EXECUTE FUNCTION log_stage();`)
	require.NoError(t, err)
	return func() []string {
		rows, err := b.pool.Query(ctx, `SELECT stage FROM stage_log ORDER BY n`)
		require.NoError(t, err)
		stages, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		return stages
	}
}

// relabelled is an analyzer that says it is another model, as an instance with other
// settings would.
type relabelled struct {
	*probe
	info analyzer.Info
}

func (r relabelled) Info() analyzer.Info { return r.info }

// A run resumed by an instance with another analyzer says so in a warning, since the
// report then mixes the two; a resume with the same analyzer says nothing.
func TestResumeWithAnotherAnalyzerWarns(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.uploadSample(t)
	first := offlineProbe()
	b.interrupt(t, id, first, func() bool { return first.diagnoses() >= 10 })

	other := relabelled{probe: offlineProbe(), info: analyzer.Info{Name: "llm", Label: "LLM analysis", Model: "test-model", PromptVersion: "v9"}}
	task := b.runTask(t, id, other, pipeline.Options{})
	require.EqualValues(t, "completed", task.Status, task.Error)
	require.Equal(t, "test-model", storedConfig(t, task).Analyzer.Model)
	var mixed []string
	for _, w := range b.report(t, id).Warnings {
		if w.Scope == "analyzer" {
			mixed = append(mixed, w.Message)
		}
	}
	require.Len(t, mixed, 1)
	require.Contains(t, mixed[0], "LLM analysis, test-model, prompts v9")
	require.Contains(t, mixed[0], "offline analysis")
}

// TestResumedTaskFindsTheSameDrivers: a run that diagnoses every conversation counts
// the failure drivers as it stores the diagnoses; a run that resumes diagnosis reads
// the labelled conversations back instead. Both find the same drivers.
func TestResumedTaskFindsTheSameDrivers(t *testing.T) {
	t.Parallel()
	convs := sample(t)
	for i := range convs {
		failed := i%7 == 0
		for _, m := range convs[i].Messages {
			for _, tc := range m.ToolCalls {
				if tc.Name == "update_reservation_flights" {
					failed = !failed
					break
				}
			}
		}
		convs[i].Label = transcript.LabelSucceeded
		if failed {
			convs[i].Label = transcript.LabelFailed
		}
	}
	clean := setup(t)
	cleanID := clean.upload(t, convs)
	require.EqualValues(t, "completed", clean.runTask(t, cleanID, offlineProbe(), pipeline.Options{}).Status)
	want := clean.resultOf(t, cleanID)
	require.Contains(t, want, "conversations [", "the sample has failure drivers to compare")
	require.Contains(t, want, `driver tool "update_reservation_flights"`)

	b := setup(t)
	id := b.upload(t, convs)
	p := offlineProbe()
	b.interrupt(t, id, p, func() bool { return p.diagnoses() >= 30 })
	require.EqualValues(t, "completed", b.runTask(t, id, offlineProbe(), pipeline.Options{}).Status)
	require.Equal(t, want, b.resultOf(t, id))
}

// TestResumedTaskWithNoClustersKeepsItsDrivers: a labelled task whose diagnoses find
// nothing stores no clusters, only its failure drivers and label check. Handed back
// right after that commit (a drain before the Actions stage), the next attempt does
// not store them again: the task completes with the same result.
func TestResumedTaskWithNoClustersKeepsItsDrivers(t *testing.T) {
	t.Parallel()
	convs := sample(t)
	for i := range convs {
		convs[i].Label = transcript.LabelSucceeded
		if i%3 == 0 {
			convs[i].Label = transcript.LabelFailed
		}
	}
	b := setup(t)
	id := b.upload(t, convs)
	quiet := func() *probe {
		p := offlineProbe()
		p.changeDiagnosis = func(_ transcript.Conversation, d *analyzer.Diagnosis) { d.Findings = nil }
		return p
	}
	task := b.runTask(t, id, quiet(), pipeline.Options{})
	require.EqualValues(t, "completed", task.Status, task.Error)
	want := b.resultOf(t, id)
	require.NotContains(t, want, "cluster ")
	require.Contains(t, want, "driver ", "the labels alone give failure drivers")

	_, err := b.pool.Exec(context.Background(), `UPDATE analysis_task SET status = 'pending', finished_at = NULL,
		lease_owner = NULL, heartbeat_at = NULL, stage = 'clustering', progress_done = 1, progress_total = 1 WHERE id = $1`, id)
	require.NoError(t, err)
	task = b.runTask(t, id, quiet(), pipeline.Options{})
	require.EqualValues(t, "completed", task.Status, task.Error)
	require.Equal(t, want, b.resultOf(t, id))
}
