package workers

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"
)

// Config tunes a Worker. The worker has no defaults of its own: every duration and
// count, the ID and Metrics must be set, and the settings' defaults and their checks
// live in app/config, which fills them (workertest.Complete does for tests).
type Config struct {
	// ID names this worker in lease_owner; ProcessID gives one unique per process, so
	// an operator can tell which instance holds a task.
	ID string
	// Poll is how long an idle worker sleeps between claims (±20% jitter, so replicas
	// do not poll in step). NOTIFY wakes it sooner, and it also wakes when the first
	// running task's heartbeat is due to go stale.
	Poll time.Duration
	// Stale is the age of a running task's heartbeat after which another worker takes
	// it over.
	Stale time.Duration
	// Heartbeat is how often the running task's heartbeat is refreshed; below Stale.
	Heartbeat time.Duration
	// MaxAttempts ends a task failed instead of running it again once its worker was
	// lost this many times, so a task that crashes its worker cannot loop.
	MaxAttempts int
	// ShutdownGrace is how long Stop lets in-flight units finish before it cancels the
	// task's context and hands the task back; zero hands it back at once.
	ShutdownGrace time.Duration
	// Talk logs every stage, unit and warning at info instead of debug: the standalone
	// worker prints what it does.
	Talk bool
	// PollOnly skips LISTEN, for connections through a pooler in transaction mode
	// (which cannot LISTEN) and for tests of the fallback. Without it, a LISTEN that
	// fails is logged once and the worker polls anyway.
	PollOnly bool
	// Metrics records what the worker does (NewMetrics, registered by app/metrics).
	Metrics *Metrics
	// Now, when set, replaces the database's clock in every time-dependent query, so
	// tests age a lease without sleeping.
	Now func() time.Time
}

// ProcessID is a worker name unique to this process: hostname-pid-random.
func ProcessID() string {
	host, _ := os.Hostname()
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%d-%s", cmp.Or(host, "worker"), os.Getpid(), hex.EncodeToString(b))
}
