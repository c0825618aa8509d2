package auth

import (
	"sync"
	"time"

	"github.com/checkup-dev/checkup/db/store"
)

// Session cache bounds: an entry is used for at most sessionCacheTTL after it was read,
// and the cache holds at most sessionCacheMax sessions.
const (
	sessionCacheTTL = time.Minute
	sessionCacheMax = 10_000
)

// sessionCache keeps the sessions read recently, so a page that polls costs no session
// lookup per request. A session that ends is dropped on every instance: ending one
// notifies checkup_sessions in the same transaction (store.EndSession), and each
// instance's listener (listenSessions) evicts it. The cache answers only while that
// listener is subscribed, and empties whenever it subscribes or loses the connection,
// so a sign-out it could have missed never outlives a read from the database.
type sessionCache struct {
	now func() time.Time

	mu        sync.Mutex
	live      bool
	entries   map[[32]byte]cachedSession
	evictions uint64 // counts evictions, so a read that raced one is not cached
}

type cachedSession struct {
	session store.Session
	until   time.Time // read at until - sessionCacheTTL
}

func newSessionCache(now func() time.Time) *sessionCache {
	return &sessionCache{now: now, entries: map[[32]byte]cachedSession{}}
}

// get returns the cached session of hash while it is fresh and not expired.
func (c *sessionCache) get(hash []byte) (store.Session, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key(hash)]
	if !ok || !c.live {
		return store.Session{}, false
	}
	if now := c.now(); !now.Before(e.until) || !now.Before(e.session.ExpiresAt) {
		delete(c.entries, key(hash))
		return store.Session{}, false
	}
	return e.session, true
}

// mark is taken before a session is read from the database and given to put: it tells
// whether a session was evicted in between, when the read may be of a session that has
// just ended.
func (c *sessionCache) mark() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.evictions
}

// put caches a session read from the database since mark.
func (c *sessionCache) put(hash []byte, s store.Session, mark uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live || c.evictions != mark {
		return
	}
	if len(c.entries) >= sessionCacheMax {
		clear(c.entries)
	}
	c.entries[key(hash)] = cachedSession{session: s, until: c.now().Add(sessionCacheTTL)}
}

// evict drops the session of hash.
func (c *sessionCache) evict(hash []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.evictions++
	delete(c.entries, key(hash))
}

// setLive turns the cache on while the listener is subscribed and off when it is not;
// either way it starts empty.
func (c *sessionCache) setLive(live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live = live
	c.evictions++
	clear(c.entries)
}

func key(hash []byte) [32]byte {
	var k [32]byte
	copy(k[:], hash)
	return k
}
