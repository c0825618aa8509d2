package web

import (
	"context"
	"sync"

	"github.com/checkup-dev/checkup/db/store"
)

// bulkTurns lets each user hold at most one of the bulk pool's connections at a time
// on this instance: an upload parses its file inside its COPY, so two slow uploads of
// one user could hold both connections while another user's small upload waits.
// A user's second upload or re-run waits for the first's turn to end instead.
type bulkTurns struct {
	mu    sync.Mutex
	turns map[int64]*bulkTurn
}

type bulkTurn struct {
	held    chan struct{} // holds one value while the user's turn is taken
	waiters int           // the turn's holder and those waiting for it
}

// wait blocks until owner's turn is free or ctx ends, and returns its release, which
// must be called once.
func (b *bulkTurns) wait(ctx context.Context, owner store.Owner) (release func(), err error) {
	id := owner.UserID()
	b.mu.Lock()
	if b.turns == nil {
		b.turns = map[int64]*bulkTurn{}
	}
	t := b.turns[id]
	if t == nil {
		t = &bulkTurn{held: make(chan struct{}, 1)}
		b.turns[id] = t
	}
	t.waiters++
	b.mu.Unlock()
	select {
	case t.held <- struct{}{}:
		return func() { <-t.held; b.leave(id, t) }, nil
	case <-ctx.Done():
		b.leave(id, t)
		return nil, ctx.Err()
	}
}

func (b *bulkTurns) leave(id int64, t *bulkTurn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t.waiters--; t.waiters == 0 {
		delete(b.turns, id)
	}
}
