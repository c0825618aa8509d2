package workers_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/internal/testhandler"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// A worker paused mid-unit while another takes its task over (the clock is moved past
// the stale threshold instead of waiting) writes nothing when it resumes.
func TestFencedOutWorkerWritesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.createTask(t, 5, testhandler.Plan{})
	paused, resume := make(chan struct{}), make(chan struct{})
	h := testhandler.New(b.pool, "a")
	h.BeforeUnit = func(ctx context.Context, _ *workers.Lease, seq int32) {
		if seq == 3 {
			close(paused)
			<-resume
		}
	}
	a := b.startWorker(t, h, workers.Config{ID: "a", Stale: time.Hour, Heartbeat: time.Hour})
	<-paused
	require.Equal(t, 2, b.units(t, id).byAttempt[1])

	// Named, the claim waits for the row while a's heartbeat holds it (a beats once its
	// LISTEN connection is up, which may be now), where the next-task scan would skip it.
	later := time.Now().Add(2 * time.Hour)
	rows, err := b.q.ClaimTask(context.Background(), b.pool, dbsqlc.ClaimTaskParams{Worker: ptr("b"), Now: &later, ID: &id, Stale: stale(time.Hour)})
	require.NoError(t, err)
	require.Len(t, rows, 1)
	require.True(t, rows[0].TookOver)

	close(resume)
	waitFor(t, 5*time.Second, "a's lease lost", func() bool { return counter(a.Metrics().LostLeases) == 1 })
	units := b.units(t, id)
	require.Equal(t, map[int32]int{1: 2}, units.byAttempt, "nothing written after the takeover")
	require.Equal(t, 3, units.pending)
	task := b.task(t, id)
	require.EqualValues(t, "running", task.Status)
	require.EqualValues(t, 2, task.Attempt)
	require.Equal(t, "b", *task.LeaseOwner)
}

// The heartbeat notices a lost lease while a unit is still in flight, and cancels it.
func TestHeartbeatStopsTaskWhoseLeaseIsLost(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.createTask(t, 3, testhandler.Plan{UnitDelayMS: 60_000})
	a := b.startWorker(t, testhandler.New(b.pool, "a"), workers.Config{Stale: time.Hour, Heartbeat: 50 * time.Millisecond})
	b.waitStatus(t, id, 5*time.Second, "running")
	later := time.Now().Add(2 * time.Hour)
	rows, err := b.q.ClaimTask(context.Background(), b.pool, dbsqlc.ClaimTaskParams{Worker: ptr("b"), Now: &later, ID: &id, Stale: stale(time.Hour)})
	require.NoError(t, err)
	require.Len(t, rows, 1)
	waitFor(t, 5*time.Second, "a's lease lost", func() bool { return counter(a.Metrics().LostLeases) == 1 })
	require.Empty(t, b.units(t, id).byAttempt)
}

func TestStopHandsTaskBackAfterGrace(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.createTask(t, 3, testhandler.Plan{UnitDelayMS: 300})
	started := make(chan struct{})
	h := testhandler.New(b.pool, "a")
	h.BeforeUnit = func(context.Context, *workers.Lease, int32) {
		select {
		case <-started:
		default:
			close(started)
		}
	}
	a := workers.New(b.pool, h, workertest.Complete(workers.Config{ShutdownGrace: 50 * time.Millisecond}), testLogger(t))
	a.Start(context.Background())
	<-started
	require.NoError(t, a.Stop(context.Background()))

	task := b.task(t, id)
	require.EqualValues(t, "pending", task.Status)
	require.EqualValues(t, 1, task.Attempt)
	require.Zero(t, task.LostCount)
	require.Nil(t, task.LeaseOwner)
	require.Equal(t, 1.0, counter(a.Metrics().HandBacks))
	require.Empty(t, b.units(t, id).byAttempt, "the unit cut off by the grace is not stored")

	b.startWorker(t, testhandler.New(b.pool, "b"), workers.Config{})
	task = b.waitStatus(t, id, 10*time.Second, "completed")
	require.EqualValues(t, 2, task.Attempt)
	require.Zero(t, task.LostCount, "a hand-back is not a lost worker")
	units := b.units(t, id)
	units.doneOnce(t)
	require.Equal(t, map[int32]int{2: 3}, units.byAttempt)
}

func TestStopLetsUnitInFlightFinish(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.createTask(t, 5, testhandler.Plan{UnitDelayMS: 200})
	second := make(chan struct{})
	h := testhandler.New(b.pool, "a")
	h.BeforeUnit = func(_ context.Context, _ *workers.Lease, seq int32) {
		if seq == 2 {
			close(second)
		}
	}
	a := workers.New(b.pool, h, workertest.Complete(workers.Config{ShutdownGrace: 10 * time.Second}), testLogger(t))
	a.Start(context.Background())
	<-second
	require.NoError(t, a.Stop(context.Background()))
	units := b.units(t, id)
	require.Equal(t, map[int32]int{1: 2}, units.byAttempt, "the unit in flight is stored, no new one starts")
	require.EqualValues(t, "pending", b.task(t, id).Status)
}

// A handler that fails on its own while the worker drains fails its task, as it would
// have without the shutdown: handing it back would only run it into the same error on
// the next worker, and the error would be logged nowhere.
func TestAnErrorDuringShutdownFailsTheTask(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.createTask(t, 1, testhandler.Plan{})
	running := make(chan struct{})
	h := handlerFunc(func(ctx context.Context, lease *workers.Lease) (workers.Outcome, error) {
		close(running)
		waitFor(t, 10*time.Second, "the drain", lease.Draining)
		return workers.Outcome{}, errors.New("the report could not be assembled")
	})
	a := workers.New(b.pool, h, workertest.Complete(workers.Config{ShutdownGrace: 10 * time.Second}), testLogger(t))
	a.Start(context.Background())
	<-running
	require.NoError(t, a.Stop(context.Background()))

	task := b.task(t, id)
	require.EqualValues(t, "failed", task.Status)
	require.Contains(t, task.Error, "the report could not be assembled")
	require.Zero(t, counter(a.Metrics().HandBacks))
}

func TestTaskLostTooOftenEndsFailed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.createTask(t, 1, testhandler.Plan{})
	start := time.Now()
	for i := range 3 { // a first claim and two takeovers, each worker lost
		at := start.Add(time.Duration(i) * 2 * time.Hour)
		rows, err := b.q.ClaimTask(context.Background(), b.pool, dbsqlc.ClaimTaskParams{Worker: ptr("lost"), Now: &at, Stale: stale(time.Hour)})
		require.NoError(t, err)
		require.Len(t, rows, 1)
	}
	var ran atomic.Bool
	h := handlerFunc(func(context.Context, *workers.Lease) (workers.Outcome, error) {
		ran.Store(true)
		return workers.Outcome{Status: taskstate.Completed}, nil
	})
	b.startWorker(t, h, workers.Config{Stale: time.Hour, Now: func() time.Time { return start.Add(6 * time.Hour) }})
	task := b.waitStatus(t, id, 5*time.Second, "failed")
	require.Contains(t, task.Error, "worker lost 3 times")
	require.EqualValues(t, 3, task.LostCount)
	require.False(t, ran.Load())
}

func TestHandlerErrorsFailTheTaskAndTheLoopGoesOn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	failing := b.createTask(t, 0, testhandler.Plan{})
	panicking := b.createTask(t, 0, testhandler.Plan{})
	fine := b.createTask(t, 0, testhandler.Plan{})
	h := handlerFunc(func(_ context.Context, lease *workers.Lease) (workers.Outcome, error) {
		switch lease.Task.ID {
		case failing:
			return workers.Outcome{}, errors.New("the handler broke")
		case panicking:
			panic("boom")
		}
		return workers.Outcome{Status: taskstate.Partial, Error: "2 conversations isolated"}, nil
	})
	b.startWorker(t, h, workers.Config{})
	require.Contains(t, b.waitStatus(t, failing, 5*time.Second, "failed").Error, "the handler broke")
	require.Contains(t, b.waitStatus(t, panicking, 5*time.Second, "failed").Error, "internal error (boom)")
	require.Equal(t, "2 conversations isolated", b.waitStatus(t, fine, 5*time.Second, "partial").Error)
}

// A heartbeat the database refuses (here a trigger, as a broken schema or revoked
// privilege would) stops the task and fails it: it is never swallowed.
func TestRefusedHeartbeatFailsTheTask(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.createTask(t, 3, testhandler.Plan{UnitDelayMS: 60_000})
	a := b.startWorker(t, testhandler.New(b.pool, "a"), workers.Config{Stale: 2 * time.Second, Heartbeat: 50 * time.Millisecond})
	waitFor(t, 5*time.Second, "first unit started", func() bool { return b.task(t, id).Stage == testhandler.Stage })

	_, err := b.pool.Exec(context.Background(), `
		CREATE FUNCTION refuse_heartbeat() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.status = 'running' AND NEW.heartbeat_at IS DISTINCT FROM OLD.heartbeat_at THEN
				RAISE EXCEPTION 'heartbeats refused';
			END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER refuse_heartbeat BEFORE UPDATE ON analysis_task
			FOR EACH ROW EXECUTE FUNCTION refuse_heartbeat();`)
	require.NoError(t, err)

	task := b.waitStatus(t, id, 10*time.Second, "failed")
	require.Contains(t, task.Error, "could not be saved")
	require.Equal(t, 1.0, counter(a.Metrics().HeartbeatFailures))
}

// A heartbeat that times out (the task table locked past the beat's timeout, as an
// overloaded server would) stops the task and hands it back: it resumes once the
// database answers and completes, every unit done once.
func TestTimedOutHeartbeatHandsTheTaskBack(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.createTask(t, 3, testhandler.Plan{UnitDelayMS: 300})
	a := b.startWorker(t, testhandler.New(b.pool, "a"), workers.Config{Stale: 400 * time.Millisecond, Heartbeat: 50 * time.Millisecond})
	waitFor(t, 5*time.Second, "first unit started", func() bool { return b.task(t, id).Stage == testhandler.Stage })

	ctx := context.Background()
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, "LOCK TABLE analysis_task IN ACCESS EXCLUSIVE MODE")
	require.NoError(t, err)
	waitFor(t, 5*time.Second, "a heartbeat failure", func() bool { return counter(a.Metrics().HeartbeatFailures) >= 1 })
	require.NoError(t, tx.Rollback(ctx))

	task := b.waitStatus(t, id, 20*time.Second, "completed")
	require.GreaterOrEqual(t, task.Attempt, int32(2), "the task was claimed again")
	b.units(t, id).doneOnce(t)
}

func TestWokenByNotifyNotByPolling(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := handlerFunc(func(context.Context, *workers.Lease) (workers.Outcome, error) {
		return workers.Outcome{Status: taskstate.Completed}, nil
	})
	// Polling once an hour, only the notifications can wake the worker in time; each
	// task is created after the previous one is done, so the worker has gone idle.
	w := b.startWorker(t, h, workers.Config{Poll: time.Hour})
	for range 3 {
		id := b.createTask(t, 0, testhandler.Plan{})
		b.waitStatus(t, id, 5*time.Second, "completed")
	}
	require.Equal(t, 3.0, counter(w.Metrics().Claims))
}

func TestPollsWithoutListen(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := handlerFunc(func(context.Context, *workers.Lease) (workers.Outcome, error) {
		return workers.Outcome{Status: taskstate.Completed}, nil
	})
	b.startWorker(t, h, workers.Config{Poll: 50 * time.Millisecond, PollOnly: true})
	id := b.createTask(t, 0, testhandler.Plan{})
	b.waitStatus(t, id, 5*time.Second, "completed")
}

func TestStartAndStopAreSafeTwice(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := handlerFunc(func(context.Context, *workers.Lease) (workers.Outcome, error) {
		return workers.Outcome{Status: taskstate.Completed}, nil
	})
	never := workers.New(b.pool, h, workertest.Complete(workers.Config{}), testLogger(t))
	require.NoError(t, never.Stop(context.Background()), "stopping a worker never started")

	w := workers.New(b.pool, h, workertest.Complete(workers.Config{}), testLogger(t))
	w.Start(context.Background())
	w.Start(context.Background())
	id := b.createTask(t, 0, testhandler.Plan{})
	b.waitStatus(t, id, 5*time.Second, "completed")
	require.NoError(t, w.Stop(context.Background()))
	require.NoError(t, w.Stop(context.Background()))
	require.Equal(t, 1.0, counter(w.Metrics().Claims))
}

func TestRunOne(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	w := workers.New(b.pool, testhandler.New(b.pool, "one"), workertest.Complete(workers.Config{ID: "one"}), testLogger(t))

	id := b.createTask(t, 2, testhandler.Plan{})
	status, err := w.RunOne(ctx, id)
	require.NoError(t, err)
	require.EqualValues(t, "completed", status)
	b.units(t, id).doneOnce(t)

	_, err = w.RunOne(ctx, id)
	require.ErrorContains(t, err, "has already ended (completed)")

	busy := b.createTask(t, 1, testhandler.Plan{})
	_, err = b.q.ClaimTask(ctx, b.pool, dbsqlc.ClaimTaskParams{Worker: ptr("elsewhere"), Stale: stale(time.Hour)})
	require.NoError(t, err)
	_, err = w.RunOne(ctx, busy)
	require.ErrorContains(t, err, "is running on elsewhere")

	_, err = w.RunOne(ctx, [16]byte{1})
	require.ErrorContains(t, err, "there is no task")
}

// A heartbeat that fails because the server dropped the connection (a restart, a
// proxy) hands the task back instead of failing it: it resumes at once and completes,
// every unit done once.
func TestDroppedConnectionHandsTheTaskBack(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.createTask(t, 4, testhandler.Plan{UnitDelayMS: 300})
	// The worker's own pool, named so that its connections can be told apart.
	workerPool, err := db.Open(context.Background(), b.url+"&application_name=dropped-worker")
	require.NoError(t, err)
	t.Cleanup(workerPool.Close)
	w := workers.New(workerPool, testhandler.New(workerPool, "a"), workertest.Complete(workers.Config{Stale: 5 * time.Second, Heartbeat: 50 * time.Millisecond}), testLogger(t))
	w.Start(context.Background())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		require.NoError(t, w.Stop(ctx))
	})
	waitFor(t, 5*time.Second, "first unit started", func() bool { return b.task(t, id).Stage == testhandler.Stage })

	// Drop every connection of the worker, as a server restart would, until one of its
	// writes has met a dropped connection.
	waitFor(t, 10*time.Second, "a write on a dropped connection", func() bool {
		_, err := b.pool.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE datname = current_database() AND application_name = 'dropped-worker'`)
		require.NoError(t, err)
		return counter(w.Metrics().HeartbeatFailures) >= 1 || b.task(t, id).Attempt >= 2
	})

	task := b.waitStatus(t, id, 20*time.Second, "completed")
	require.GreaterOrEqual(t, task.Attempt, int32(2), "the task was handed back and claimed again")
	require.Positive(t, task.LostCount, "a hand-back after a database failure counts towards TASK_MAX_ATTEMPTS")
	require.Less(t, task.LostCount, task.Attempt)
	b.units(t, id).doneOnce(t)
}

// A task whose runs keep failing on the database (a transient error every time) is
// handed back and retried, but not for ever: it ends failed after TASK_MAX_ATTEMPTS.
func TestTransientFailuresDoNotLoopForEver(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.createTask(t, 0, testhandler.Plan{})
	var runs atomic.Int32
	h := handlerFunc(func(context.Context, *workers.Lease) (workers.Outcome, error) {
		runs.Add(1)
		return workers.Outcome{}, fmt.Errorf("pipeline: store clusters: %w", io.ErrUnexpectedEOF)
	})
	b.startWorker(t, h, workers.Config{MaxAttempts: 3})
	task := b.waitStatus(t, id, 10*time.Second, "failed")
	require.Contains(t, task.Error, "3 times")
	require.Equal(t, int32(3), runs.Load())
}
