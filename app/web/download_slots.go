package web

import (
	"context"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/checkup-dev/checkup/db/store"
)

// downloadSlots bounds the downloads being sent. Each holds a database connection
// and a snapshot for as long as it sends, so at most half the pool's connections send
// files and the rest stay for the pages and the worker; and each user may hold half
// of those (at least one), so one user's slow or many downloads cannot stop everyone
// else's. More downloads wait their turn, in the order they asked.
type downloadSlots struct {
	all     *semaphore.Weighted
	perUser int64
	mu      sync.Mutex
	users   map[int64]*userDownloads
}

// userDownloads is one user's share, kept while any of their downloads holds or
// waits for it.
type userDownloads struct {
	sem  *semaphore.Weighted
	refs int
}

func newDownloadSlots(total int) *downloadSlots {
	total = max(1, total)
	return &downloadSlots{all: semaphore.NewWeighted(int64(total)), perUser: int64(max(1, total/2)), users: map[int64]*userDownloads{}}
}

// take waits for one of owner's slots, then for one of all, and returns its release,
// to be called once. It gives up when ctx ends.
func (d *downloadSlots) take(ctx context.Context, owner store.Owner) (release func(), err error) {
	id := owner.UserID()
	d.mu.Lock()
	u := d.users[id]
	if u == nil {
		u = &userDownloads{sem: semaphore.NewWeighted(d.perUser)}
		d.users[id] = u
	}
	u.refs++
	d.mu.Unlock()
	leave := func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if u.refs--; u.refs == 0 {
			delete(d.users, id)
		}
	}
	if err := u.sem.Acquire(ctx, 1); err != nil {
		leave()
		return nil, context.Cause(ctx)
	}
	if err := d.all.Acquire(ctx, 1); err != nil {
		u.sem.Release(1)
		leave()
		return nil, context.Cause(ctx)
	}
	return func() {
		d.all.Release(1)
		u.sem.Release(1)
		leave()
	}, nil
}
