package workers_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/internal/testhandler"
	"github.com/checkup-dev/checkup/workers/workertest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// bundle is a database of the test's own, with one user who owns the tasks.
type bundle struct {
	pool  *pgxpool.Pool
	url   string
	store *store.Store
	owner store.Owner
	q     *dbsqlc.Queries
}

func setup(tb testing.TB) *bundle {
	tb.Helper()
	pool, url := dbtest.Isolated(tb)
	q := dbsqlc.New()
	return &bundle{pool: pool, url: url, store: store.New(pool), owner: workertest.Owner(tb, pool, "owner"), q: q}
}

// createTask creates a pending task of units conversations that testhandler runs by plan.
func (b *bundle) createTask(tb testing.TB, units int, plan testhandler.Plan) uuid.UUID {
	tb.Helper()
	return workertest.CreateTask(tb, b.store, b.owner, store.NewTask{Title: fmt.Sprintf("%d units", units), Config: plan.Config()},
		workertest.Conversations(units))
}

func (b *bundle) task(tb testing.TB, id uuid.UUID) dbsqlc.AnalysisTask {
	tb.Helper()
	task, err := b.q.GetAnalysisTask(context.Background(), b.pool, dbsqlc.GetAnalysisTaskParams{ID: id, OwnerUserID: b.owner.UserID()})
	require.NoError(tb, err)
	return task
}

// unitReport is what the stored results say about a task's units.
type unitReport struct {
	total   int
	pending int
	// records counts the "unit-<seq>" warnings of each unit: 1 when it was done once.
	records map[string]int
	// byAttempt counts the units each attempt did.
	byAttempt map[int32]int
}

func (b *bundle) units(tb testing.TB, id uuid.UUID) unitReport {
	tb.Helper()
	ctx := context.Background()
	checkpoints, err := b.q.ListConversationCheckpoints(ctx, b.pool, dbsqlc.ListConversationCheckpointsParams{TaskID: id, OwnerUserID: b.owner.UserID()})
	require.NoError(tb, err)
	warnings, err := b.q.ListTaskWarnings(ctx, b.pool, dbsqlc.ListTaskWarningsParams{TaskID: id, OwnerUserID: b.owner.UserID(), MaxRows: 100_000})
	require.NoError(tb, err)
	r := unitReport{total: len(checkpoints), records: map[string]int{}, byAttempt: map[int32]int{}}
	for _, c := range checkpoints {
		if c.DiagnosisStatus == taskstate.DiagnosisPending {
			r.pending++
		}
	}
	for _, w := range warnings {
		if !strings.HasPrefix(w.Scope, "unit-") {
			continue
		}
		r.records[w.Scope]++
		var attempt int32
		_, err := fmt.Sscanf(w.Message, "done by attempt %d", &attempt)
		require.NoError(tb, err)
		r.byAttempt[attempt]++
	}
	return r
}

// doneOnce checks that every unit of the task is done, and recorded exactly once.
func (r unitReport) doneOnce(tb testing.TB) {
	tb.Helper()
	require.Zero(tb, r.pending, "units left pending")
	require.Len(tb, r.records, r.total, "every unit recorded")
	for scope, n := range r.records {
		require.Equal(tb, 1, n, "%s recorded %d times", scope, n)
	}
}

// waitFor polls cond until it holds, failing the test after timeout.
var waitFor = workertest.WaitFor

// waitStatus waits until the task has status and returns it.
func (b *bundle) waitStatus(tb testing.TB, id uuid.UUID, timeout time.Duration, status string) dbsqlc.AnalysisTask {
	tb.Helper()
	var task dbsqlc.AnalysisTask
	waitFor(tb, timeout, "status "+status, func() bool {
		task = b.task(tb, id)
		return string(task.Status) == status
	})
	return task
}

// startWorker starts an in-process worker that is stopped when the test ends.
func (b *bundle) startWorker(tb testing.TB, handler workers.Handler, cfg workers.Config) *workers.Worker {
	tb.Helper()
	return workertest.StartWorker(tb, b.pool, handler, cfg, testLogger(tb))
}

// testLogger logs into the test's output (shown on failure or with -v); benchmarks
// log nothing.
func testLogger(tb testing.TB) *slog.Logger {
	if _, ok := tb.(*testing.B); ok {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(tb.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func counter(c prometheus.Counter) float64 {
	var m dto.Metric
	_ = c.Write(&m)
	return m.GetCounter().GetValue()
}

// handlerFunc adapts a function to workers.Handler.
type handlerFunc func(ctx context.Context, lease *workers.Lease) (workers.Outcome, error)

func (f handlerFunc) Run(ctx context.Context, lease *workers.Lease) (workers.Outcome, error) {
	return f(ctx, lease)
}
