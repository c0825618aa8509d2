package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
)

// TestAnOwnersReviewsTakeTurns: a review of one task holds back the same owner's review
// of another until it ends, so each checks the rules the other stored; another owner's
// review goes ahead meanwhile.
func TestAnOwnersReviewsTakeTurns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	s := store.New(pool)
	owner, other := newOwnerNamed(t, "a"), newOwnerNamed(t, "b")
	finished := func(o store.Owner) uuid.UUID {
		id, err := publishCapped(t, s, o, 10)
		require.NoError(t, err)
		_, err = pool.Exec(ctx, `UPDATE analysis_task SET status = 'completed', finished_at = now() WHERE id = $1`, id)
		require.NoError(t, err)
		return id
	}
	a, b, c := finished(owner), finished(owner), finished(other)

	first, err := s.BeginReview(ctx, a, owner)
	require.NoError(t, err)
	t.Cleanup(first.Rollback)

	others, err := s.BeginReview(ctx, c, other)
	require.NoError(t, err, "another owner's review does not wait")
	others.Rollback()

	second := make(chan error, 1)
	go func() {
		r, err := s.BeginReview(ctx, b, owner)
		if err == nil {
			r.Rollback()
		}
		second <- err
	}()
	waitForReviewLock(t, ctx, pool, owner)
	select {
	case err := <-second:
		t.Fatalf("the second review began while the first was open: %v", err)
	default:
	}
	require.NoError(t, first.Commit(ctx))
	select {
	case err := <-second:
		require.NoError(t, err, "it begins once the first has ended")
	case <-time.After(30 * time.Second):
		t.Fatal("the second review still waits after the first ended")
	}
}

// waitForReviewLock waits until a session waits for owner's review lock: the advisory
// lock of class "rev" (0x726576) and the owner's id.
func waitForReviewLock(t *testing.T, ctx context.Context, pool *pgxpool.Pool, owner store.Owner) {
	t.Helper()
	require.Eventually(t, func() bool {
		var waiting bool
		require.NoError(t, pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks
			WHERE locktype = 'advisory' AND NOT granted AND classid = x'726576'::int AND objid = $1::bigint)`,
			owner.UserID()).Scan(&waiting))
		return waiting
	}, 30*time.Second, 10*time.Millisecond, "no session came to wait for the owner's review lock")
}
