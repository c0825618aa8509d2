package pglocal

import (
	"context"
	"time"
)

// Supervise starts the cluster again, on the same port, whenever it finds it not
// running (its postmaster killed, out of memory, crashed), looking every interval,
// until ctx ends or Stop is called. Meanwhile the pool's connections fail and the
// readiness probe is red; once the server is back, both recover by themselves. A
// guest leaves the server to its holder, which supervises it.
func (c *Cluster) Supervise(ctx context.Context, every time.Duration) {
	if c.guest {
		return
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if c.stopping.Load() {
			return
		}
		if _, ok := c.runningPort(); ok || c.stopping.Load() {
			continue
		}
		c.logger.Warn("the private PostgreSQL is not running; starting it again", "data_dir", c.dir, "port", c.port)
		if err := c.start(ctx, c.throwaway); err != nil {
			c.logger.Error("starting the private PostgreSQL again failed; trying again", "err", err)
			continue
		}
		c.logger.Info("the private PostgreSQL runs again", "data_dir", c.dir, "port", c.port)
	}
}
