package workers

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"
)

// Config tunes a Worker. The zero value is usable: withDefaults fills every field.
type Config struct {
	// ID names this worker in lease_owner. Default: hostname-pid-random, unique per
	// process so an operator can tell which instance holds a task.
	ID string
	// Poll is how long an idle worker sleeps between claims (±20% jitter, so replicas
	// do not poll in step). NOTIFY wakes it sooner, and it also wakes when the first
	// running task's heartbeat is due to go stale. Default 2 s.
	Poll time.Duration
	// Stale is the age of a running task's heartbeat after which another worker takes
	// it over. Default 120 s.
	Stale time.Duration
	// Heartbeat is how often the running task's heartbeat is refreshed. Default Stale/4.
	Heartbeat time.Duration
	// MaxAttempts ends a task failed instead of running it again once its worker was
	// lost this many times, so a task that crashes its worker cannot loop. Default 3.
	MaxAttempts int
	// ShutdownGrace is how long Stop lets in-flight units finish before it cancels the
	// task's context and hands the task back. Zero means the default, 30 s; a negative
	// value cancels at once.
	ShutdownGrace time.Duration
	// Talk logs every stage, unit and warning at info instead of debug: the standalone
	// worker prints what it does.
	Talk bool
	// PollOnly skips LISTEN, for connections through a pooler in transaction mode
	// (which cannot LISTEN) and for tests of the fallback. Without it, a LISTEN that
	// fails is logged once and the worker polls anyway.
	PollOnly bool
	// Metrics records what the worker does; nil records into an unregistered set.
	Metrics *Metrics
	// Now, when set, replaces the database's clock in every time-dependent query, so
	// tests age a lease without sleeping.
	Now func() time.Time
}

// withDefaults fills every unset field: the one place defaults live.
func (c Config) withDefaults() Config {
	c.ID = cmp.Or(c.ID, defaultID())
	c.Poll = cmp.Or(c.Poll, 2*time.Second)
	c.Stale = cmp.Or(c.Stale, 120*time.Second)
	c.Heartbeat = cmp.Or(c.Heartbeat, c.Stale/4)
	c.MaxAttempts = cmp.Or(c.MaxAttempts, 3)
	c.ShutdownGrace = max(cmp.Or(c.ShutdownGrace, 30*time.Second), 0)
	if c.Metrics == nil {
		c.Metrics = NewMetrics()
	}
	return c
}

func defaultID() string {
	host, _ := os.Hostname()
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%d-%s", cmp.Or(host, "worker"), os.Getpid(), hex.EncodeToString(b))
}
