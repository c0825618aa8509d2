// Package startstop is the one lifecycle of a background service (the worker, retention,
// the NOTIFY subscriptions): Start runs its loop on a goroutine, Stop asks it to stop and
// waits until it has, and both are safe to call twice, in any order, from any goroutine.
// It sits at the bottom so that every layer's services share it.
package startstop

import (
	"context"
	"sync"
)

// Base is embedded (or held) by a service. Its zero value is ready: not started.
type Base struct {
	mu       sync.Mutex
	started  bool
	draining bool
	stopping chan struct{} // closed by Drain or Stop
	stopped  chan struct{} // closed once the loop returned, or at Stop if it never started
}

// init makes the channels; b.mu is held.
func (b *Base) init() {
	if b.stopping == nil {
		b.stopping, b.stopped = make(chan struct{}), make(chan struct{})
	}
}

// Start runs run on a goroutine with ctx, and reports whether it did: a second Start,
// or a Start after Stop, runs nothing. run should return soon after Stopping is closed
// (or use WithStop for a context that ends then); Stopped is closed when it returns.
func (b *Base) Start(ctx context.Context, run func(ctx context.Context)) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	if b.started {
		return false
	}
	b.started = true
	go func() {
		defer close(b.stopped)
		run(ctx)
	}()
	return true
}

// Drain closes Stopping without waiting: the loop winds down, and a Start that has not
// happened yet runs nothing. Safe to call twice.
func (b *Base) Drain() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.drain()
}

// drain closes Stopping once; b.mu is held.
func (b *Base) drain() {
	b.init()
	if !b.draining {
		b.draining = true
		close(b.stopping)
	}
}

// Stop drains the service and waits until its loop has returned, or until ctx ends
// (ctx's error). A service never started is stopped at once, for good.
func (b *Base) Stop(ctx context.Context) error {
	b.mu.Lock()
	b.drain()
	if !b.started {
		b.started = true
		close(b.stopped)
	}
	stopped := b.stopped
	b.mu.Unlock()
	select {
	case <-stopped:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stopping is closed once Drain or Stop is called: the loop's signal to wind down.
func (b *Base) Stopping() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	return b.stopping
}

// Stopped is closed once the loop has returned, or at Stop when it never started.
func (b *Base) Stopped() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	return b.stopped
}

// IsStopping reports whether Drain or Stop was called.
func (b *Base) IsStopping() bool {
	select {
	case <-b.Stopping():
		return true
	default:
		return false
	}
}

// WithStop returns a context that ends with ctx or once Stopping is closed, for a loop
// that stops by its context; cancel releases it.
func (b *Base) WithStop(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stopping := b.Stopping()
	go func() {
		select {
		case <-stopping:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
