package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/report/reporttest"
)

// TestCompareCandidatesAndTitleRuns: the picker lists the owner's finished runs with
// results, the same title first and newest first, never another owner's, the task
// itself or a run without results; the trends read each task's runs of its title up
// to it, oldest first, and their clusters.
func TestCompareCandidatesAndTitleRuns(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	ctx := context.Background()
	alice, bob := reporttest.User(t, pool, "alice-"+uuid.NewString()), reporttest.User(t, pool, "bob-"+uuid.NewString())
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	insert := func(owner int64, title string, status taskstate.Status, day int) uuid.UUID {
		id := reporttest.Insert(t, pool, owner, reporttest.Task{Title: title, Status: status}).ID
		_, err := pool.Exec(ctx, `UPDATE analysis_task SET created_at = $2 WHERE id = $1`, id, start.AddDate(0, 0, day))
		require.NoError(t, err)
		return id
	}
	week1 := insert(alice, "Support bot", taskstate.Completed, 0)
	other := insert(alice, "Sales bot", taskstate.Completed, 1)
	week2 := insert(alice, "Support bot", taskstate.Partial, 7)
	insert(alice, "Support bot", taskstate.Failed, 8)
	insert(alice, "Support bot", taskstate.Running, 9)
	week3 := insert(alice, "Support bot", taskstate.Completed, 14)
	insert(bob, "Support bot", taskstate.Completed, 10)

	s := store.New(pool)
	owner := store.NewOwner(alice)
	rows, err := s.CompareCandidates(ctx, week3, "Support bot", owner, 10)
	require.NoError(t, err)
	var got []uuid.UUID
	for _, r := range rows {
		got = append(got, r.ID)
	}
	require.Equal(t, []uuid.UUID{week2, week1, other}, got, "same title first, newest first; no run without results, no other owner's")
	require.True(t, rows[0].SameTitle)
	require.False(t, rows[2].SameTitle)
	rows, err = s.CompareCandidates(ctx, week3, "Support bot", owner, 1)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	rows, err = s.CompareCandidates(ctx, week3, "Support bot", store.NewOwner(bob), 10)
	require.NoError(t, err)
	require.Len(t, rows, 1, "bob sees only his own")

	runs, err := s.TitleRuns(ctx, []uuid.UUID{week3, week2, other}, owner, 2)
	require.NoError(t, err)
	byTask := map[uuid.UUID][]uuid.UUID{}
	for _, r := range runs.Runs {
		byTask[r.TaskID] = append(byTask[r.TaskID], r.RunID)
	}
	require.Equal(t, []uuid.UUID{week2, week3}, byTask[week3], "the latest 2 up to it, oldest first")
	require.Equal(t, []uuid.UUID{week1, week2}, byTask[week2])
	require.Equal(t, []uuid.UUID{other}, byTask[other])
	clustered := map[uuid.UUID]int{}
	for _, c := range runs.Clusters {
		clustered[c.TaskID]++
	}
	require.Len(t, clustered, 4, "the clusters of every run read")
	require.Equal(t, 3, clustered[week3])

	none, err := s.TitleRuns(ctx, []uuid.UUID{week3}, store.NewOwner(bob), 5)
	require.NoError(t, err)
	require.Empty(t, none.Runs, "another owner's task has no runs for bob")
}
