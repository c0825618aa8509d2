package workers_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/internal/testhandler"
)

// BenchmarkWakeLatency measures the time from creating a task (the call that commits
// it and its NOTIFY) to the idle worker's handler starting on it, with polling set to
// an hour so only the notification can wake the worker.
//
//	go test ./workers -run '^$' -bench WakeLatency -benchtime 300x
func BenchmarkWakeLatency(b *testing.B) {
	bd := setup(b)
	started := make(chan time.Time, 1)
	h := handlerFunc(func(context.Context, *workers.Lease) (workers.Outcome, error) {
		started <- time.Now()
		return workers.Outcome{Status: taskstate.Completed}, nil
	})
	bd.startWorker(b, h, workers.Config{Poll: time.Hour})
	var latencies []time.Duration
	for b.Loop() {
		created := time.Now()
		id := bd.createTask(b, 1, testhandler.Plan{})
		select {
		case at := <-started:
			latencies = append(latencies, at.Sub(created))
		case <-time.After(10 * time.Second):
			b.Fatal("the worker did not wake within 10 s")
		}
		b.StopTimer()
		bd.waitStatus(b, id, 5*time.Second, "completed")
		time.Sleep(20 * time.Millisecond) // pacing: let the worker go idle again, so each task is a wake-up
		b.StartTimer()
	}
	slices.Sort(latencies)
	b.ReportMetric(ms(percentile(latencies, 50)), "p50_ms")
	b.ReportMetric(ms(percentile(latencies, 99)), "p99_ms")
}

// BenchmarkClaimThroughput runs 8 concurrent claimers through a table of 100k pending
// tasks, each claim followed by the fenced finish (so running tasks stay as few as in
// production), and pgbench with the same two statements, taken from
// db/queries/analysis_task.sql, on an identical table: 2 s each in turn, five times,
// so both see the same machine as its load changes; the rates are over the ten
// seconds each ran. It also reports the CPU each client spent per claim (this process
// for the claimers, the pgbench process for pgbench): on two cores shared with the
// server, what a client spends is what the server cannot. pgbench's includes opening
// its 8 connections in every turn, which the claimers' pool did before timing.
//
// A third client in each turn is the floor of a Go client: pgbench's script sent
// through pgx's lowest layer (pgconn) on 8 held connections, without the pool, the
// generated code or decoding, on a third identical database. What the claimers spend
// above it goes to the pool and to pgx encoding and decoding typed values; what it
// spends above pgbench, to Go's runtime and pgx's protocol layer.
//
//	go test ./workers -run '^$' -bench ClaimThroughput -benchtime 1x
func BenchmarkClaimThroughput(b *testing.B) {
	const tasks, claimers, turns, turn = 100_000, 8, 5, 2 * time.Second
	pgbench := findPgbench(b)
	for b.Loop() {
		goSide := setup(b)
		seedTasks(b, goSide, tasks)
		benchSide := setup(b)
		seedTasks(b, benchSide, tasks)
		floorSide := setup(b)
		seedTasks(b, floorSide, tasks)

		pool := claimerPool(b, goSide, claimers)
		floor := dialFloor(b, floorSide, claimers)
		claims, floorClaims, benchClaims := 0, 0, 0.0
		var goCPU, floorCPU, benchCPU time.Duration
		for range turns {
			before := selfCPU(b)
			claims += claimFor(b, goSide, pool, claimers, turn)
			goCPU += selfCPU(b) - before
			tps, cpu := runPgbench(b, pgbench, benchSide, claimers, turn)
			benchClaims += tps * turn.Seconds()
			benchCPU += cpu
			before = selfCPU(b)
			floorClaims += floor.claimFor(b, turn)
			floorCPU += selfCPU(b) - before
		}
		if claims == 0 || floorClaims == 0 {
			b.Fatalf("claimed nothing: %d by the claimers, %d by the floor", claims, floorClaims)
		}
		goRate := float64(claims) / (turns * turn).Seconds()
		floorRate := float64(floorClaims) / (turns * turn).Seconds()
		benchRate := benchClaims / (turns * turn).Seconds()
		b.ReportMetric(goRate, "claims/s")
		b.ReportMetric(benchRate, "pgbench_claims/s")
		b.ReportMetric(goRate/benchRate, "ratio")
		b.ReportMetric(floorRate/benchRate, "floor-ratio")
		b.ReportMetric(float64(goCPU.Microseconds())/float64(claims), "client-cpu-µs/claim")
		b.ReportMetric(float64(floorCPU.Microseconds())/float64(floorClaims), "floor-cpu-µs/claim")
		b.ReportMetric(float64(benchCPU.Microseconds())/benchClaims, "pgbench-cpu-µs/claim")
	}
}

// BenchmarkTakeover kills a worker process mid-task (SIGKILL) with a second one idle,
// and measures the time from the kill to the second one's claim, and the units the
// second one did again (0 expected: finished units are checkpoints).
//
//	go test ./workers -run '^$' -bench Takeover -benchtime 5x
func BenchmarkTakeover(b *testing.B) {
	const staleMS = 2000
	bd := setup(b)
	f := bd.fleet(b, fmt.Sprintf("TASK_STALE_MS=%d", staleMS), "TASK_HEARTBEAT_MS=500")
	var worst time.Duration
	redone := 0
	for b.Loop() {
		id := bd.createTask(b, 12, testhandler.Plan{UnitDelayMS: 100})
		a := f.start(b)
		waitFor(b, 20*time.Second, "four units done", func() bool { return bd.units(b, id).byAttempt[1] >= 4 })
		standby := f.start(b)
		waitFor(b, 10*time.Second, "the standby to start", func() bool { return strings.Contains(standby.Output(), "testworker ready") })
		killed := time.Now()
		require.NoError(b, a.Signal(syscall.SIGKILL))
		task := bd.waitStatus(b, id, 30*time.Second, "completed")
		require.EqualValues(b, 2, task.Attempt)
		worst = max(worst, task.ClaimedAt.Sub(killed))
		for _, n := range bd.units(b, id).records {
			redone += n - 1
		}
		require.NoError(b, standby.Signal(syscall.SIGKILL))
		_, err := standby.Wait(5 * time.Second)
		require.NoError(b, err)
	}
	b.ReportMetric(ms(worst), "max_takeover_ms")
	b.ReportMetric(staleMS, "stale_ms")
	b.ReportMetric(float64(redone), "units_redone")
}

// seedTasks adds n pending tasks, oldest first, with COPY.
func seedTasks(tb testing.TB, bd *bundle, n int) {
	tb.Helper()
	ctx := context.Background()
	start := time.Now().Add(-time.Hour)
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{bd.owner.UserID(), "seeded", start.Add(time.Duration(i) * time.Millisecond)}
	}
	_, err := bd.pool.CopyFrom(ctx, pgx.Identifier{"analysis_task"}, []string{"owner_user_id", "title", "created_at"}, pgx.CopyFromRows(rows))
	require.NoError(tb, err)
	_, err = bd.pool.Exec(ctx, "VACUUM ANALYZE analysis_task") // the same starting point for both sides
	require.NoError(tb, err)
}

// claimerPool is the program's pool (db.Open) with one connection per claimer, all
// open before any claim is timed, as pgbench's clients are (it times them without
// their connecting).
func claimerPool(tb testing.TB, bd *bundle, claimers int) *pgxpool.Pool {
	tb.Helper()
	pool, err := db.Open(context.Background(), fmt.Sprintf("%s&pool_max_conns=%d&pool_min_conns=%[2]d", bd.url, claimers))
	require.NoError(tb, err)
	tb.Cleanup(pool.Close)
	conns := make([]*pgxpool.Conn, claimers)
	for i := range conns {
		conns[i], err = pool.Acquire(context.Background())
		require.NoError(tb, err)
	}
	for _, c := range conns {
		c.Release()
	}
	return pool
}

// claimFor runs claimers goroutines on pool, each claiming and finishing tasks until d
// ends, and returns the number of claims.
func claimFor(tb testing.TB, bd *bundle, pool *pgxpool.Pool, claimers int, d time.Duration) int {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var mu sync.Mutex
	claims := 0
	var wg sync.WaitGroup
	for i := range claimers {
		wg.Go(func() {
			worker, n := fmt.Sprintf("bench-%d", i), 0
			for ctx.Err() == nil {
				rows, err := bd.q.ClaimTask(ctx, pool, dbsqlc.ClaimTaskParams{Worker: &worker, Stale: stale(2 * time.Minute)})
				if err != nil || len(rows) == 0 {
					break
				}
				r := rows[0]
				if _, err := bd.q.FinishTask(ctx, pool, dbsqlc.FinishTaskParams{
					ID: r.ID, OwnerUserID: r.OwnerUserID, Attempt: r.Attempt, Status: "completed",
				}); err != nil {
					break
				}
				n++
			}
			mu.Lock()
			claims += n
			mu.Unlock()
		})
	}
	wg.Wait()
	return claims
}

// selfCPU is the CPU time this process has used so far, user and system.
func selfCPU(tb testing.TB) time.Duration {
	tb.Helper()
	var u syscall.Rusage
	require.NoError(tb, syscall.Getrusage(syscall.RUSAGE_SELF, &u))
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
