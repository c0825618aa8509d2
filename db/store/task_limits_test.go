package store_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
)

// publishCapped uploads three conversations as a task of owner under a cap of limit
// unfinished tasks and publishes it.
func publishCapped(t *testing.T, s *store.Store, owner store.Owner, limit int) (uuid.UUID, error) {
	t.Helper()
	u, err := s.BeginTask(context.Background(), owner, store.NewTask{Title: "t", SourceFilename: "f.jsonl", Unfinished: limit})
	require.NoError(t, err)
	t.Cleanup(u.Rollback)
	for _, c := range rows(3) {
		require.NoError(t, u.Add(c))
	}
	return u.ID(), u.Publish(context.Background(), store.UploadEnd{Format: "test"})
}

// TestAnOwnersUnfinishedTasksAreCapped: uploads and re-runs together stop at the cap of
// tasks waiting or running, the refused one storing nothing; another owner is not
// counted, and a finished task makes room again.
func TestAnOwnersUnfinishedTasksAreCapped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	s := store.New(pool)
	owner, other := newOwnerNamed(t, "a"), newOwnerNamed(t, "b")

	first, err := publishCapped(t, s, owner, 2)
	require.NoError(t, err)
	_, err = publishCapped(t, s, owner, 2)
	require.NoError(t, err, "the cap counts this task too: two fit under two")
	n, err := s.UnfinishedTasks(ctx, owner)
	require.NoError(t, err)
	require.Equal(t, 2, n)

	_, err = publishCapped(t, s, owner, 2)
	require.ErrorIs(t, err, store.ErrTooManyUnfinished)
	tasks, convs, _ := counts(t, pool, owner)
	require.Equal(t, 2, tasks, "the refused upload stored no task")
	require.Equal(t, 6, convs, "nor its conversations")
	_, err = s.RerunTask(ctx, first, owner, store.Limits{Unfinished: 2, Reruns: 2})
	require.ErrorIs(t, err, store.ErrTooManyUnfinished, "a re-run counts against the same cap")
	_, err = publishCapped(t, s, other, 2)
	require.NoError(t, err, "another owner's tasks are not counted")

	_, err = pool.Exec(ctx, `UPDATE analysis_task SET status = 'completed', finished_at = now() WHERE id = $1`, first)
	require.NoError(t, err)
	_, err = s.RerunTask(ctx, first, owner, store.Limits{Unfinished: 2, Reruns: 2})
	require.NoError(t, err, "a finished task makes room")
	_, err = publishCapped(t, s, owner, 0)
	require.NoError(t, err, "0 is no cap")
}

// TestUploadsPublishedAtOnceKeepToTheCap: with one place left, of uploads published at
// the same moment exactly one gets it.
func TestUploadsPublishedAtOnceKeepToTheCap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	s := store.New(pool)
	owner := newOwnerNamed(t, "a")
	_, err := publishCapped(t, s, owner, 2)
	require.NoError(t, err)

	const racers = 4
	uploads := make([]*store.TaskUpload, racers)
	for i := range uploads {
		u, err := s.BeginTask(ctx, owner, store.NewTask{Title: "t", SourceFilename: "f.jsonl", Unfinished: 2})
		require.NoError(t, err)
		t.Cleanup(u.Rollback)
		require.NoError(t, u.Add(rows(1)[0]))
		uploads[i] = u
	}
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i, u := range uploads {
		wg.Go(func() { errs[i] = u.Publish(ctx, store.UploadEnd{Format: "test"}) })
	}
	wg.Wait()
	var published int
	for _, err := range errs {
		if err == nil {
			published++
		} else {
			require.ErrorIs(t, err, store.ErrTooManyUnfinished)
		}
	}
	require.Equal(t, 1, published)
	n, err := s.UnfinishedTasks(ctx, owner)
	require.NoError(t, err)
	require.Equal(t, 2, n)
}
