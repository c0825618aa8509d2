package auth_test

import (
	"context"
	"crypto/sha256"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
)

func days(n int) time.Duration { return time.Duration(n) * 24 * time.Hour }

func interval(d time.Duration) pgtype.Interval {
	return pgtype.Interval{Microseconds: d.Microseconds(), Valid: true}
}

func TestSessionSlidesAtMostOnceAMinuteUpToItsMaximumAge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := dbtest.Tx(t)
	q := dbsqlc.New()
	user, err := q.UpsertUser(ctx, tx, dbsqlc.UpsertUserParams{Provider: "local", ProviderUserID: email("sl", "example.com")})
	require.NoError(t, err)
	hash := sha256.Sum256([]byte("sliding"))
	t0 := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := t0.Add(d); return &v }
	require.NoError(t, q.CreateSession(ctx, tx, dbsqlc.CreateSessionParams{TokenHash: hash[:], UserID: user.ID, Now: at(0), Ttl: interval(auth.SessionTTL)}))
	touch := func(d time.Duration) int64 {
		n, err := q.TouchSession(ctx, tx, dbsqlc.TouchSessionParams{
			TokenHash: hash[:], Now: at(d), IdleTtl: interval(auth.SessionTTL), MaxAge: interval(auth.SessionMaxAge),
		})
		require.NoError(t, err)
		return n
	}
	lookup := func(d time.Duration) (dbsqlc.GetSessionUserRow, error) {
		return q.GetSessionUser(ctx, tx, dbsqlc.GetSessionUserParams{TokenHash: hash[:], Now: at(d)})
	}

	require.Zero(t, touch(30*time.Second), "not again within a minute")
	require.EqualValues(t, 1, touch(2*time.Minute))
	row, err := lookup(2 * time.Minute)
	require.NoError(t, err)
	require.Equal(t, t0.Add(2*time.Minute), row.LastSeenAt.UTC())
	require.Equal(t, t0.Add(2*time.Minute+auth.SessionTTL), row.ExpiresAt.UTC())

	// Used every 13 days, it lives until its maximum age, and not a second longer.
	for d := days(13); d < auth.SessionMaxAge; d += days(13) {
		require.EqualValues(t, 1, touch(d))
	}
	row, err = lookup(auth.SessionMaxAge - time.Second)
	require.NoError(t, err)
	require.Equal(t, t0.Add(auth.SessionMaxAge), row.ExpiresAt.UTC())
	_, err = lookup(auth.SessionMaxAge)
	require.ErrorIs(t, err, pgx.ErrNoRows)
	require.Zero(t, touch(auth.SessionMaxAge+time.Minute), "an expired session is not revived")

	purged, err := q.PurgeExpiredSessions(ctx, tx, at(auth.SessionMaxAge))
	require.NoError(t, err)
	require.GreaterOrEqual(t, purged, int64(1))
}

func TestARequestSlidesAStaleSession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t, nil)
	user := authtest.NewSession(t, b.pool, email("sa", "example.com")).User
	token := "stale-" + time.Now().Format(time.RFC3339Nano)
	hash := sha256.Sum256([]byte(token))
	tenMinutesAgo := time.Now().Add(-10 * time.Minute)
	require.NoError(t, dbsqlc.New().CreateSession(ctx, b.pool, dbsqlc.CreateSessionParams{
		TokenHash: hash[:], UserID: user.ID, Now: &tenMinutesAgo, Ttl: interval(auth.SessionTTL),
	}))

	resp := withCookie(t, b, "/", &http.Cookie{Name: auth.SessionCookie, Value: token})
	require.Equal(t, "/tasks", resp.Header.Get("Location"))
	row, err := dbsqlc.New().GetSessionUser(ctx, b.pool, dbsqlc.GetSessionUserParams{TokenHash: hash[:]})
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), row.LastSeenAt, time.Minute, "last_seen_at moved to now")
	require.WithinDuration(t, time.Now().Add(auth.SessionTTL), row.ExpiresAt, time.Minute, "and the idle expiry with it")
}
