package workers_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/internal/testhandler"
)

func TestCancelRunningTaskThroughNotify(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.createTask(t, 3, testhandler.Plan{UnitDelayMS: 60_000})
	// No heartbeat for an hour: only the notification can deliver the cancel.
	b.startWorker(t, testhandler.New(b.pool, "a"), workers.Config{Stale: 4 * time.Hour, Heartbeat: time.Hour})
	waitFor(t, 5*time.Second, "first unit started", func() bool { return b.task(t, id).Stage == testhandler.Stage })
	status, err := b.store.CancelTask(context.Background(), id, b.owner)
	require.NoError(t, err)
	require.EqualValues(t, "running", status)
	task := b.waitStatus(t, id, 5*time.Second, "canceled")
	require.Equal(t, "Canceled by its owner.", task.Error)
	require.NotNil(t, task.CancelRequestedAt)
}

func TestCancelRunningTaskAtHeartbeatWithoutListen(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.createTask(t, 3, testhandler.Plan{UnitDelayMS: 60_000})
	b.startWorker(t, testhandler.New(b.pool, "a"), workers.Config{PollOnly: true, Poll: 20 * time.Millisecond,
		Stale: time.Hour, Heartbeat: 200 * time.Millisecond})
	waitFor(t, 5*time.Second, "first unit started", func() bool { return b.task(t, id).Stage == testhandler.Stage })
	_, err := b.store.CancelTask(context.Background(), id, b.owner)
	require.NoError(t, err)
	b.waitStatus(t, id, 5*time.Second, "canceled")
}

func TestCancelPendingTaskAtOnceAndOnlyTheOwners(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.createTask(t, 1, testhandler.Plan{})

	other, err := b.q.UpsertUser(ctx, b.pool, dbsqlc.UpsertUserParams{Provider: "test", ProviderUserID: "other"})
	require.NoError(t, err)
	_, err = b.store.CancelTask(ctx, id, store.NewOwner(other.ID))
	require.ErrorIs(t, err, store.ErrNotFound, "another owner's task is not found")
	_, err = b.store.CancelTask(ctx, uuid.New(), b.owner)
	require.ErrorIs(t, err, store.ErrNotFound)

	status, err := b.store.CancelTask(ctx, id, b.owner)
	require.NoError(t, err)
	require.EqualValues(t, "canceled", status)
	task := b.task(t, id)
	require.EqualValues(t, "canceled", task.Status)
	require.NotNil(t, task.FinishedAt)

	status, err = b.store.CancelTask(ctx, id, b.owner)
	require.NoError(t, err)
	require.EqualValues(t, "canceled", status, "a finished task is left as it is")
	rows, err := b.q.ClaimTask(ctx, b.pool, dbsqlc.ClaimTaskParams{Worker: ptr("w"), Stale: stale(time.Minute)})
	require.NoError(t, err)
	require.Empty(t, rows, "a canceled task is never claimed")
}

// finishesThroughACancel is a handler that asks for its own task's cancel, waits until
// the cancel has reached it, and returns completed all the same: a cancel that arrives
// as the handler finishes.
type finishesThroughACancel struct{ b *bundle }

func (h finishesThroughACancel) Run(ctx context.Context, lease *workers.Lease) (workers.Outcome, error) {
	if _, err := h.b.store.CancelTask(context.WithoutCancel(ctx), lease.Task.ID, h.b.owner); err != nil {
		return workers.Outcome{}, err
	}
	<-ctx.Done()
	return workers.Outcome{Status: taskstate.Completed}, nil
}

// TestACancelTooLateToStopTheHandlerLeavesItsResult: the handler returned its
// result, so the work the owner would lose is done: the task ends completed.
func TestACancelTooLateToStopTheHandlerLeavesItsResult(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.createTask(t, 1, testhandler.Plan{})
	b.startWorker(t, finishesThroughACancel{b: b}, workers.Config{})
	task := b.waitStatus(t, id, 10*time.Second, "completed")
	require.NotNil(t, task.CancelRequestedAt, "the cancel was asked for")
}
