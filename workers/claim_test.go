package workers_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/internal/testhandler"
)

func stale(d time.Duration) pgtype.Interval {
	return pgtype.Interval{Microseconds: d.Microseconds(), Valid: true}
}

func ptr[T any](v T) *T { return &v }

func TestConcurrentClaimersTakeEveryTaskExactlyOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const tasks, claimers = 200, 8
	for range tasks {
		b.createTask(t, 0, testhandler.Plan{})
	}
	var mu sync.Mutex
	claimed := map[uuid.UUID]int{}
	var wg sync.WaitGroup
	for range claimers {
		wg.Go(func() {
			for {
				rows, err := b.q.ClaimTask(context.Background(), b.pool, dbsqlc.ClaimTaskParams{Worker: ptr("w"), Stale: stale(time.Hour)})
				require.NoError(t, err)
				if len(rows) == 0 {
					return
				}
				require.Len(t, rows, 1)
				require.EqualValues(t, 1, rows[0].Attempt)
				mu.Lock()
				claimed[rows[0].ID]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Len(t, claimed, tasks, "no task lost")
	for id, n := range claimed {
		require.Equal(t, 1, n, "task %s claimed %d times", id, n)
	}
}

func TestWorkersRunEveryTaskOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const tasks = 40
	ids := make([]uuid.UUID, tasks)
	for i := range ids {
		ids[i] = b.createTask(t, 2, testhandler.Plan{})
	}
	var mu sync.Mutex
	runs := map[uuid.UUID]int{}
	for i := range 4 {
		h := testhandler.New(b.pool, "w")
		h.BeforeUnit = func(_ context.Context, lease *workers.Lease, seq int32) {
			if seq == 1 {
				mu.Lock()
				runs[lease.Task.ID]++
				mu.Unlock()
			}
		}
		b.startWorker(t, h, workers.Config{ID: "w" + string(rune('a'+i)), Poll: 50 * time.Millisecond})
	}
	for _, id := range ids {
		b.waitStatus(t, id, 20*time.Second, "completed")
		b.units(t, id).doneOnce(t)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, id := range ids {
		require.Equal(t, 1, runs[id], "task %s run once", id)
	}
}

func TestClaimTakesOverOnlyStaleTasks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.createTask(t, 0, testhandler.Plan{})
	now := time.Now()
	claim := func(at time.Time) []dbsqlc.ClaimTaskRow {
		rows, err := b.q.ClaimTask(ctx, b.pool, dbsqlc.ClaimTaskParams{Worker: ptr("w"), Now: &at, Stale: stale(time.Minute)})
		require.NoError(t, err)
		return rows
	}
	first := claim(now)
	require.Len(t, first, 1)
	require.False(t, first[0].TookOver)
	require.Empty(t, claim(now.Add(59*time.Second)), "a fresh heartbeat keeps the lease")
	second := claim(now.Add(61 * time.Second))
	require.Len(t, second, 1)
	require.Equal(t, id, second[0].ID)
	require.True(t, second[0].TookOver)
	require.EqualValues(t, 2, second[0].Attempt, "a new fencing token")
	require.EqualValues(t, 1, second[0].LostCount)

	// The first holder's fenced writes match nothing now.
	old := dbsqlc.TouchTaskLeaseParams{ID: id, OwnerUserID: b.owner.UserID(), Attempt: 1}
	n, err := b.q.TouchTaskLease(ctx, b.pool, old)
	require.NoError(t, err)
	require.Zero(t, n)
	hb, err := b.q.HeartbeatTask(ctx, b.pool, dbsqlc.HeartbeatTaskParams{ID: id, OwnerUserID: b.owner.UserID(), Attempt: 1})
	require.NoError(t, err)
	require.False(t, hb.Held)
	n, err = b.q.FinishTask(ctx, b.pool, dbsqlc.FinishTaskParams{ID: id, OwnerUserID: b.owner.UserID(), Attempt: 1, Status: "completed"})
	require.NoError(t, err)
	require.Zero(t, n)

	// A hand-back keeps the token consumed and does not count a lost worker.
	n, err = b.q.HandBackTask(ctx, b.pool, dbsqlc.HandBackTaskParams{ID: id, OwnerUserID: b.owner.UserID(), Attempt: 2})
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	third := claim(now.Add(62 * time.Second))
	require.Len(t, third, 1)
	require.False(t, third[0].TookOver)
	require.EqualValues(t, 3, third[0].Attempt)
	require.EqualValues(t, 1, third[0].LostCount)
}

func TestFencedWritesOfAnotherOwnerMatchNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.createTask(t, 0, testhandler.Plan{})
	rows, err := b.q.ClaimTask(ctx, b.pool, dbsqlc.ClaimTaskParams{Worker: ptr("w"), Stale: stale(time.Minute)})
	require.NoError(t, err)
	require.Len(t, rows, 1)
	n, err := b.q.SetTaskProgress(ctx, b.pool, dbsqlc.SetTaskProgressParams{ID: rows[0].ID, OwnerUserID: rows[0].OwnerUserID + 1, Attempt: rows[0].Attempt, Stage: "x"})
	require.NoError(t, err)
	require.Zero(t, n)
}
