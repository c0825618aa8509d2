package notified

import (
	"sync"
	"time"
)

// Cache holds values read recently, each for at most its TTL, and at most Max of them.
// Readers follow the pattern Get, else Mark, read the database, Put: Put drops a value
// when any change was announced since Mark, since the read may predate it.
type Cache[K comparable, V any] struct {
	now func() time.Time
	ttl time.Duration
	max int

	mu      sync.Mutex
	live    bool
	entries map[K]entry[V]
	changes uint64 // counts announced changes, so a read that raced one is not kept
}

type entry[V any] struct {
	value V
	until time.Time
}

// NewCache returns a cache, off until SetLive(true), that keeps a value for ttl and
// at most max values; now is the clock.
func NewCache[K comparable, V any](now func() time.Time, ttl time.Duration, max int) *Cache[K, V] {
	return &Cache[K, V]{now: now, ttl: ttl, max: max, entries: map[K]entry[V]{}}
}

// Get returns the value of k while the cache is live and the value fresh.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok || !c.live {
		var zero V
		return zero, false
	}
	if !c.now().Before(e.until) {
		delete(c.entries, k)
		var zero V
		return zero, false
	}
	return e.value, true
}

// Mark is taken before a value is read from the database and given to Put.
type Mark struct {
	changes uint64
	at      time.Time
}

// Mark starts a read from the database.
func (c *Cache[K, V]) Mark() Mark {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Mark{changes: c.changes, at: c.now()}
}

// Put keeps v, read from the database since mark, unless a change was announced in
// between. Its TTL counts from the mark, before the read, so a read that was slow to
// arrive is not kept longer. A full cache is emptied first: a bound, not an eviction
// policy.
func (c *Cache[K, V]) Put(k K, v V, mark Mark) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live || c.changes != mark.changes {
		return
	}
	if len(c.entries) >= c.max {
		clear(c.entries)
	}
	c.entries[k] = entry[V]{value: v, until: mark.at.Add(c.ttl)}
}

// Evict drops k: its row changed, or will be read again.
func (c *Cache[K, V]) Evict(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.changes++
	delete(c.entries, k)
}

// Replace sets k to v, as a notification carried it, when k is cached and fresh; a
// value not cached stays out, so only what is read here fills the cache. The time k
// is kept for starts again.
func (c *Cache[K, V]) Replace(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.changes++
	now := c.now()
	if e, ok := c.entries[k]; ok && now.Before(e.until) {
		c.entries[k] = entry[V]{value: v, until: now.Add(c.ttl)}
	}
}

// SetLive turns the cache on while its subscription is up and off when it is not;
// either way it starts empty.
func (c *Cache[K, V]) SetLive(live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live = live
	c.changes++
	clear(c.entries)
}
