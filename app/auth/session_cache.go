package auth

import (
	"context"
	"encoding/hex"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/notified"
	"github.com/checkup-dev/checkup/db/store"
)

// Session cache bounds: an entry is used for at most sessionCacheTTL after it was read,
// and the cache holds at most sessionCacheMax sessions.
const (
	sessionCacheTTL = time.Minute
	sessionCacheMax = 10_000
)

// sessionCache keeps the sessions read recently, by the SHA-256 of their token, so a
// page that polls costs no session lookup per request. A session that ends is dropped
// on every instance: ending one notifies checkup_sessions in the same transaction
// (store.EndSession), and each instance's subscription (sessionSubscription) evicts it.
type sessionCache = notified.Cache[[32]byte, store.Session]

func newSessionCache(now func() time.Time) *sessionCache {
	return notified.NewCache[[32]byte, store.Session](now, sessionCacheTTL, sessionCacheMax)
}

// sessionSubscription keeps cache true to the sessions that end on any instance: each
// notification's payload is the hex hash of one.
func sessionSubscription(deps Deps, cache *sessionCache) *notified.Subscription {
	return notified.NewSubscription(notified.Config{
		Conn: deps.Pool.Config().ConnConfig,
		Listen: func(ctx context.Context, conn *pgx.Conn) error {
			return dbsqlc.New().ListenSessions(ctx, conn)
		},
		Live: cache.SetLive,
		Notify: func(_, payload string) {
			hash, err := hex.DecodeString(payload)
			if err != nil {
				cache.SetLive(true) // cannot tell which session ended: forget them all
				return
			}
			cache.Evict(key(hash))
		},
		Lost:   "cannot LISTEN for ended sessions; every request reads its session until it works again",
		Back:   "the session cache is on again",
		Logger: deps.Logger,
	})
}

// Start subscribes this instance to the sessions that end elsewhere, which turns the
// session cache on; it stays off, and every request reads its session, until Start is
// called (tests of handlers alone) and whenever the subscription is down. Starting
// twice is a no-op.
func (a *Auth) Start(ctx context.Context) error { return a.sessions.Start(ctx) }

// Stop ends the subscription (the cache turns off) and waits until it has, or ctx ends.
func (a *Auth) Stop(ctx context.Context) error { return a.sessions.Stop(ctx) }

func key(hash []byte) [32]byte {
	var k [32]byte
	copy(k[:], hash)
	return k
}
