package main

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// newTask creates a pending task with one conversation.
func newTask(t *testing.T, pool *pgxpool.Pool) (uuid.UUID, store.Owner) {
	t.Helper()
	owner := workertest.Owner(t, pool, "worker")
	id := workertest.CreateTask(t, store.New(pool), owner, store.NewTask{Title: "one"}, []transcript.Conversation{
		{ID: "c1", Messages: []transcript.Message{{Role: transcript.RoleUser, Content: "hi"}}}})
	return id, owner
}

// waitEnded waits until the task is no longer pending or running.
func waitEnded(t *testing.T, pool *pgxpool.Pool, id uuid.UUID, owner store.Owner) dbsqlc.AnalysisTask {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		task, err := dbsqlc.New().GetAnalysisTask(context.Background(), pool, dbsqlc.GetAnalysisTaskParams{ID: id, OwnerUserID: owner.UserID()})
		require.NoError(t, err)
		if task.FinishedAt != nil {
			return task
		}
		require.True(t, time.Now().Before(deadline), "task still %s", task.Status)
		time.Sleep(20 * time.Millisecond)
	}
}

func TestEmbeddedWorkerRunsTasks(t *testing.T) {
	t.Parallel()
	pool, dbURL := dbtest.Isolated(t)
	p := apptest.Start(t, binary(t), []string{"DATABASE_URL=" + dbURL})
	p.WaitReady(t, 30*time.Second)
	id, owner := newTask(t, pool)
	waitEnded(t, pool, id, owner)
	require.NoError(t, p.Signal(syscall.SIGTERM))
	code, err := p.Wait(20 * time.Second)
	require.NoError(t, err)
	require.Equal(t, 0, code, p.Output())
}

func TestWorkerRunsOneTaskInTheForeground(t *testing.T) {
	t.Parallel()
	pool, dbURL := dbtest.Isolated(t)
	id, owner := newTask(t, pool)
	bin := binary(t)
	p := apptest.Start(t, bin, []string{"DATABASE_URL=" + dbURL}, "worker", "--task", id.String())
	code, err := p.Wait(30 * time.Second)
	require.NoError(t, err)
	require.Equal(t, 0, code, p.Output())
	require.Contains(t, p.Output(), "task claimed")
	require.NotNil(t, waitEnded(t, pool, id, owner).FinishedAt)

	p = apptest.Start(t, bin, []string{"DATABASE_URL=" + dbURL}, "worker", "--task", id.String())
	code, err = p.Wait(30 * time.Second)
	require.NoError(t, err)
	require.Equal(t, 1, code)
	require.Contains(t, p.Output(), "has already ended")

	p = apptest.Start(t, bin, []string{"DATABASE_URL=" + dbURL}, "worker", "--task", "nope")
	code, err = p.Wait(30 * time.Second)
	require.NoError(t, err)
	require.Equal(t, 1, code)
	require.Contains(t, p.Output(), "--task needs a task id")
}

func TestStandaloneWorkerTalksAndStops(t *testing.T) {
	t.Parallel()
	pool, dbURL := dbtest.Isolated(t)
	p := apptest.Start(t, binary(t), []string{"DATABASE_URL=" + dbURL}, "worker")
	id, owner := newTask(t, pool)
	waitEnded(t, pool, id, owner)
	require.NoError(t, p.Signal(syscall.SIGTERM))
	code, err := p.Wait(20 * time.Second)
	require.NoError(t, err)
	require.Equal(t, 0, code, p.Output())
	require.Contains(t, p.Output(), "task claimed")
	require.Contains(t, p.Output(), "task finished")
}
