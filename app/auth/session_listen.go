package auth

import (
	"context"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// maxListenBackoff is the longest wait before subscribing again after a failure.
const maxListenBackoff = 30 * time.Second

// sessionListener keeps the subscription that lets the session cache answer.
type sessionListener struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// Start subscribes this instance to the sessions that end elsewhere, which turns the
// session cache on; it stays off, and every request reads its session, until Start is
// called (tests of handlers alone) and whenever the subscription is down. Starting
// twice is a no-op.
func (a *Auth) Start(ctx context.Context) error {
	a.listener.mu.Lock()
	defer a.listener.mu.Unlock()
	if a.listener.done != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	a.listener.cancel, a.listener.done = cancel, make(chan struct{})
	go func(done chan struct{}) {
		defer close(done)
		a.listenSessions(ctx)
	}(a.listener.done)
	return nil
}

// Stop ends the subscription (the cache turns off) and waits until it has, or ctx ends.
func (a *Auth) Stop(ctx context.Context) error {
	a.listener.mu.Lock()
	cancel, done := a.listener.cancel, a.listener.done
	a.listener.cancel, a.listener.done = nil, nil
	a.listener.mu.Unlock()
	if done == nil {
		return nil
	}
	cancel()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("auth: stop the session listener: %w", context.Cause(ctx))
	}
}

// listenSessions subscribes again with a growing backoff until ctx ends. A failure is
// logged once, when the subscription stops working, not at every retry.
func (a *Auth) listenSessions(ctx context.Context) {
	var backoff time.Duration
	warned := false
	for ctx.Err() == nil {
		err := a.listenOnce(ctx, func() {
			backoff = 0
			if warned {
				a.deps.Logger.Info("the session cache is on again")
				warned = false
			}
		})
		a.cache.setLive(false)
		if ctx.Err() != nil {
			return
		}
		if !warned {
			a.deps.Logger.Warn("cannot LISTEN for ended sessions; every request reads its session until it works again", "err", err)
			warned = true
		}
		backoff = min(max(2*backoff, time.Second), maxListenBackoff)
		timer := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
		case <-timer.C:
		}
		timer.Stop()
	}
}

// listenOnce opens a dedicated connection (a pooled one would be lost to the pool),
// subscribes, turns the cache on and evicts each ended session until the connection
// fails or ctx ends.
func (a *Auth) listenOnce(ctx context.Context, connected func()) error {
	conn, err := pgx.ConnectConfig(ctx, a.deps.Pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("auth: listen: connect: %w", err)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if err := dbsqlc.New().ListenSessions(ctx, conn); err != nil {
		return fmt.Errorf("auth: listen: %w", err)
	}
	a.cache.setLive(true)
	connected()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("auth: listen: %w", err)
		}
		hash, err := hex.DecodeString(n.Payload)
		if err != nil {
			a.cache.setLive(true) // cannot tell which session ended: forget them all
			continue
		}
		a.cache.evict(hash)
	}
}
