package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/db"
	"github.com/checkup-dev/checkup/db/pglocal"
)

// ownCluster starts a private PostgreSQL in a temporary directory on a fixed port, so
// that the test can stop and start it and it comes back where the instance looks.
func ownCluster(t *testing.T) (dir string, port int) {
	t.Helper()
	dir, err := os.MkdirTemp("", "checkup-restart-")
	require.NoError(t, err)
	// The cluster may run as the postgres user (when the tests run as root): let it in.
	require.NoError(t, os.Chmod(dir, 0o755))
	t.Cleanup(func() { os.RemoveAll(dir) })
	_, portText, err := net.SplitHostPort(apptest.FreeAddr(t))
	require.NoError(t, err)
	port, err = strconv.Atoi(portText)
	require.NoError(t, err)
	return dir, port
}

func startCluster(t *testing.T, dir string, port int) *pglocal.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pglocal.Start(ctx, pglocal.Options{Dir: dir, Port: port, Throwaway: true})
	require.NoError(t, err)
	return c
}

func stopCluster(t *testing.T, c *pglocal.Cluster) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, c.Stop(ctx))
}

// readyz is /readyz's status code, 0 when it does not answer within 3 s.
func readyz(addr string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/readyz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

func waitReadyz(t *testing.T, addr string, want int, timeout time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		got := readyz(addr)
		if got == want {
			return time.Since(start)
		}
		require.True(t, time.Since(start) < timeout, "/readyz still answers %d, not %d, after %s", got, want, timeout)
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPostgreSQLRestartUnderARunningTask stops the database in the middle of a task
// and starts it again: /readyz goes red then green, the instance reconnects, and the
// task is resumed from its checkpoints and completes with every conversation
// diagnosed once (but for the units alive at the outage).
func TestPostgreSQLRestartUnderARunningTask(t *testing.T) {
	t.Parallel()
	dir, port := ownCluster(t)
	cluster := startCluster(t, dir, port)
	t.Cleanup(func() {
		// cluster is the server started last: the test restarts it.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = cluster.Stop(ctx)
	})
	ctx := context.Background()
	require.NoError(t, cluster.CreateDatabase(ctx, "checkup", ""))
	dbURL := cluster.URL("checkup")
	pool, err := db.Open(ctx, dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	require.NoError(t, db.Migrate(ctx, pool, slog.New(slog.DiscardHandler)))

	o := setupOps(t, pool, dbURL, 60*time.Millisecond)
	p := o.start(t)
	id := o.upload(t, p.Addr, "restart.jsonl", sampleSlice(t, 0, 30))
	before := o.waitTask(t, id, 30*time.Second, "the middle of its diagnosis", midDiagnosis)

	stopCluster(t, cluster)
	red := waitReadyz(t, p.Addr, http.StatusServiceUnavailable, 10*time.Second)
	cluster = startCluster(t, dir, port)
	green := waitReadyz(t, p.Addr, http.StatusOK, 20*time.Second)
	t.Logf("database stopped at %d/%d conversations; /readyz red after %s, green %s after the restart",
		before.ProgressDone, before.ProgressTotal, red.Round(time.Millisecond), green.Round(time.Millisecond))

	task := o.waitTask(t, id, 40*time.Second, "the end", finished)
	o.checkReport(t, p.Addr, id)
	t.Logf("task %s, attempt %d, lost %d", task.Status, task.Attempt, task.LostCount)
	calls := o.diagnoseCalls()
	require.Len(t, calls, 30)
	again := 0
	for _, n := range calls {
		again += n - 1
	}
	// At most twice DIAGNOSIS_CONCURRENCY (2) units are alive at once: two calls in
	// flight and two answered units waiting for their checkpoint (parallel's second
	// bound). Only those can be asked again.
	require.LessOrEqual(t, again, 4, "only the units alive at the outage are asked again")
}

// TestThePrivateClusterIsStartedAgainWhenItDies kills the postmaster of the private
// cluster an instance started (no DATABASE_URL): /readyz turns red while /healthz
// stays green, the instance starts the cluster again and /readyz turns green.
func TestThePrivateClusterIsStartedAgainWhenItDies(t *testing.T) {
	t.Parallel()
	dir, _ := ownCluster(t)
	p := apptest.Start(t, binary(t), []string{"DATA_DIR=" + dir, "LOG_LEVEL=info"})
	p.WaitReady(t, time.Minute)
	pidFile, err := os.ReadFile(filepath.Join(dir, "pgdata", "postmaster.pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.SplitN(string(pidFile), "\n", 2)[0])
	require.NoError(t, err)

	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	red := waitReadyz(t, p.Addr, http.StatusServiceUnavailable, 10*time.Second)
	require.Equal(t, http.StatusOK, get(t, p.Addr, "/healthz"), "the process still answers")
	green := waitReadyz(t, p.Addr, http.StatusOK, 30*time.Second)
	p.WaitOutput(t, time.Second, "the private PostgreSQL runs again")
	t.Logf("postmaster killed: /readyz red after %s, green %s later", red.Round(time.Millisecond), green.Round(time.Millisecond))
}

// get is the status of GET path at addr.
func get(t *testing.T, addr, path string) int {
	t.Helper()
	resp, err := http.Get("http://" + addr + path)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}
