package workers_test

import (
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/workers/internal/testhandler"
)

// chaosDuration is how long TestChaos kills and restarts workers: briefly in `go test
// ./...`, as long as CHAOS_DURATION says under `task chaos`.
func chaosDuration(tb testing.TB) time.Duration {
	raw := os.Getenv("CHAOS_DURATION")
	if raw == "" {
		return 3 * time.Second
	}
	d, err := time.ParseDuration(raw)
	require.NoError(tb, err, "CHAOS_DURATION")
	return d
}

// Three worker processes run tasks while one of them is killed (SIGKILL, sometimes
// SIGTERM) and restarted every few hundred milliseconds. Every task must end
// completed, with every unit done exactly once in the stored results.
func TestChaos(t *testing.T) {
	t.Parallel()
	b := setup(t)
	duration := chaosDuration(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("chaos for %s, seed %d", duration, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	f := b.fleet(t, "TASK_STALE_MS=1000", "TASK_HEARTBEAT_MS=200", "WORKER_POLL_MS=200",
		"TASK_MAX_ATTEMPTS=100", "SHUTDOWN_GRACE_MS=500")
	var ids []uuid.UUID
	addTask := func() {
		plan := testhandler.Plan{UnitDelayMS: 10 + rng.IntN(40)}
		ids = append(ids, b.createTask(t, 3+rng.IntN(6), plan))
	}
	for range 24 {
		addTask()
	}
	procs := []*apptest.Process{f.start(t), f.start(t), f.start(t)}

	kills, terms := 0, 0
	end := time.Now().Add(duration)
	for time.Now().Before(end) {
		addTask() // keep the workers busy however long the chaos runs
		addTask()
		time.Sleep(time.Duration(150+rng.IntN(400)) * time.Millisecond) // the pace of the chaos, not a wait for state
		i := rng.IntN(len(procs))
		if rng.IntN(5) == 0 {
			terms++
			require.NoError(t, procs[i].Signal(syscall.SIGTERM))
		} else {
			kills++
			require.NoError(t, procs[i].Signal(syscall.SIGKILL))
		}
		_, err := procs[i].Wait(10 * time.Second)
		require.NoError(t, err)
		procs[i] = f.start(t)
	}

	lost := 0
	for _, id := range ids {
		var task dbsqlc.AnalysisTask
		waitFor(t, 60*time.Second, "every task to end", func() bool {
			task = b.task(t, id)
			return task.FinishedAt != nil
		})
		require.EqualValues(t, "completed", task.Status, task.Error)
		lost += int(task.LostCount)
		b.units(t, id).doneOnce(t)
	}
	t.Logf("%d tasks completed, each unit once, through %d SIGKILLs (%d takeovers) and %d SIGTERMs",
		len(ids), kills, lost, terms)
}
