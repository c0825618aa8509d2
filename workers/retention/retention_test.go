package retention

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers/workertest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// now is the clock every test passes in: tasks finish relative to it.
var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

type bundle struct {
	pool   *pgxpool.Pool
	store  *store.Store
	q      *dbsqlc.Queries
	owners []store.Owner
}

func setup(t *testing.T) *bundle {
	t.Helper()
	pool, _ := dbtest.Isolated(t)
	b := &bundle{pool: pool, store: store.New(pool), q: dbsqlc.New()}
	for _, name := range []string{"ann", "bob"} {
		b.owners = append(b.owners, workertest.Owner(t, pool, name))
	}
	return b
}

func (b *bundle) service(t *testing.T, cfg Config) *Service {
	t.Helper()
	return New(b.pool, cfg, slog.New(slog.NewTextHandler(t.Output(), nil)))
}

// task is a task the test made, with what should become of it.
type task struct {
	id    uuid.UUID
	owner store.Owner
	what  string
}

// create makes owner's pending task with three conversations and a warning, so it has
// rows in child tables.
func (b *bundle) create(t *testing.T, owner store.Owner, what string) task {
	t.Helper()
	ctx := context.Background()
	id := workertest.CreateTask(t, b.store, owner, store.NewTask{Title: what}, workertest.Conversations(3))
	require.NoError(t, b.q.InsertTaskWarning(ctx, b.pool, dbsqlc.InsertTaskWarningParams{
		TaskID: id, OwnerUserID: owner.UserID(), Stage: "quality", Scope: "task", Message: "a child row",
	}))
	return task{id: id, owner: owner, what: what}
}

// claim makes the task running, claimed at the given time.
func (b *bundle) claim(t *testing.T, tk task, at time.Time) int32 {
	t.Helper()
	rows, err := b.q.ClaimTask(context.Background(), b.pool, dbsqlc.ClaimTaskParams{
		Worker: new("test"), Now: &at, ID: &tk.id, Stale: pgtype.Interval{Microseconds: time.Hour.Microseconds(), Valid: true},
	})
	require.NoError(t, err)
	require.Len(t, rows, 1)
	return rows[0].Attempt
}

// finish claims the task and ends it with status at the given time.
func (b *bundle) finish(t *testing.T, tk task, status string, at time.Time) {
	t.Helper()
	attempt := b.claim(t, tk, at.Add(-time.Hour))
	n, err := b.q.FinishTask(context.Background(), b.pool, dbsqlc.FinishTaskParams{
		Status: taskstate.Status(status), Now: &at, ID: tk.id, OwnerUserID: tk.owner.UserID(), Attempt: attempt,
	})
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
}

// cancel cancels the pending task at the given time (it finishes canceled then).
func (b *bundle) cancel(t *testing.T, tk task, at time.Time) {
	t.Helper()
	_, err := b.q.RequestTaskCancel(context.Background(), b.pool, dbsqlc.RequestTaskCancelParams{Now: &at, ID: tk.id, OwnerUserID: tk.owner.UserID()})
	require.NoError(t, err)
}

// exists reports whether the task is there, and checks its child rows went with it.
func (b *bundle) exists(t *testing.T, tk task) bool {
	t.Helper()
	ctx := context.Background()
	_, err := b.store.Task(ctx, tk.id, tk.owner)
	convs, cerr := b.q.ListConversationCheckpoints(ctx, b.pool, dbsqlc.ListConversationCheckpointsParams{TaskID: tk.id, OwnerUserID: tk.owner.UserID()})
	require.NoError(t, cerr)
	warnings, werr := b.q.ListTaskWarnings(ctx, b.pool, dbsqlc.ListTaskWarningsParams{TaskID: tk.id, OwnerUserID: tk.owner.UserID(), MaxRows: 10})
	require.NoError(t, werr)
	if err != nil {
		require.ErrorIs(t, err, store.ErrNotFound)
		require.Empty(t, convs, "%s: conversations deleted with the task", tk.what)
		require.Empty(t, warnings, "%s: warnings deleted with the task", tk.what)
		return false
	}
	require.Len(t, convs, 3, tk.what)
	require.Len(t, warnings, 1, tk.what)
	return true
}

func TestRunOnceDeletesOnlyFinishedTasksOlderThanTheLimitForEveryOwner(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann, bob := b.owners[0], b.owners[1]
	var gone, kept []task
	for i, status := range []string{"completed", "partial", "insufficient_data", "failed"} {
		tk := b.create(t, b.owners[i%2], "old "+status)
		b.finish(t, tk, status, now.Add(-40*day))
		gone = append(gone, tk)
	}
	oldCanceled := b.create(t, bob, "old canceled")
	b.cancel(t, oldCanceled, now.Add(-31*day))
	justOver := b.create(t, ann, "finished 30 days and a minute ago")
	b.finish(t, justOver, "completed", now.Add(-30*day-time.Minute))
	gone = append(gone, oldCanceled, justOver)

	justUnder := b.create(t, bob, "finished 30 days less a minute ago")
	b.finish(t, justUnder, "completed", now.Add(-30*day+time.Minute))
	recent := b.create(t, ann, "finished yesterday")
	b.finish(t, recent, "failed", now.Add(-day))
	longRunning := b.create(t, ann, "running since 40 days ago")
	b.claim(t, longRunning, now.Add(-40*day))
	pending := b.create(t, bob, "pending")
	kept = append(kept, justUnder, recent, longRunning, pending)

	m := NewMetrics()
	s := b.service(t, Config{Days: 30, BatchSize: 2, Metrics: m})
	deleted, err := s.runOnce(context.Background(), now)
	require.NoError(t, err)
	require.EqualValues(t, len(gone), deleted)
	for _, tk := range gone {
		require.False(t, b.exists(t, tk), "%s is deleted", tk.what)
	}
	for _, tk := range kept {
		require.True(t, b.exists(t, tk), "%s is kept", tk.what)
	}
	require.EqualValues(t, len(gone), value(m.DeletedTasks))
	require.EqualValues(t, 1, value(m.Runs.WithLabelValues(runDeleted)))

	deleted, err = s.runOnce(context.Background(), now)
	require.NoError(t, err)
	require.Zero(t, deleted, "a second run finds nothing")
	require.EqualValues(t, 1, value(m.Runs.WithLabelValues(runNothing)))
}

func TestRunOnceSkipsWhileAnotherInstanceHoldsTheLock(t *testing.T) {
	t.Parallel()
	b := setup(t)
	old := b.create(t, b.owners[0], "old")
	b.finish(t, old, "completed", now.Add(-10*day))
	ctx := context.Background()
	other, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = other.Rollback(ctx) }()
	locked, err := b.q.PurgeTryLock(ctx, other, lockID)
	require.NoError(t, err)
	require.True(t, locked)

	m := NewMetrics()
	s := b.service(t, Config{Days: 1, Metrics: m})
	deleted, err := s.runOnce(ctx, now)
	require.NoError(t, err)
	require.Zero(t, deleted)
	require.True(t, b.exists(t, old))
	require.EqualValues(t, 1, value(m.Runs.WithLabelValues(runSkipped)))

	require.NoError(t, other.Commit(ctx), "the lock ends with the other instance's transaction")
	deleted, err = s.runOnce(ctx, now)
	require.NoError(t, err)
	require.EqualValues(t, 1, deleted)
	require.False(t, b.exists(t, old))
}

func TestStartRunsAtOnceAndStopIsSafeTwice(t *testing.T) {
	t.Parallel()
	b := setup(t)
	old := b.create(t, b.owners[1], "finished long ago")
	b.finish(t, old, "completed", time.Now().Add(-3*day))

	ctx := context.Background()
	off := b.service(t, Config{})
	require.NoError(t, off.Start(ctx))
	require.NoError(t, off.Stop(ctx))
	require.NoError(t, off.Stop(ctx))
	require.True(t, b.exists(t, old), "RETENTION_DAYS=0 deletes nothing")

	m := NewMetrics()
	s := b.service(t, Config{Days: 2, Metrics: m})
	require.NoError(t, s.Start(ctx))
	require.NoError(t, s.Start(ctx))
	deadline := time.Now().Add(10 * time.Second)
	for value(m.DeletedTasks) < 1 {
		require.True(t, time.Now().Before(deadline), "the first run deletes the old task")
		time.Sleep(10 * time.Millisecond)
	}
	require.NoError(t, s.Stop(ctx))
	require.NoError(t, s.Stop(ctx))
	require.False(t, b.exists(t, old))

	never := b.service(t, Config{Days: 2})
	require.NoError(t, never.Stop(ctx))
	require.NoError(t, never.Start(ctx))
}

func value(c prometheus.Counter) float64 {
	var m dto.Metric
	_ = c.Write(&m)
	return m.GetCounter().GetValue()
}
