package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/KimMachineGun/automemlimit/memlimit"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/db/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func binary(t *testing.T) string {
	t.Helper()
	return apptest.Build(t, t.TempDir())
}

func TestHelpListsEverySetting(t *testing.T) {
	t.Parallel()
	p := apptest.Start(t, binary(t), nil, "--help")
	code, err := p.Wait(30 * time.Second)
	require.NoError(t, err)
	require.Equal(t, 0, code)
	for _, name := range []string{"DATABASE_URL", "DATA_DIR", "TASK_STALE_MS", "ACTION_CONCURRENCY", "OPENAI_API_KEY", "RETENTION_DAYS", "GOGC", "GOMEMLIMIT"} {
		require.Contains(t, p.Output(), name)
	}
}

func TestInvalidSettingEndsStart(t *testing.T) {
	t.Parallel()
	p := apptest.Start(t, binary(t), []string{"LLM_JSON_MODE=xml"})
	code, err := p.Wait(10 * time.Second)
	require.NoError(t, err)
	require.NotEqual(t, 0, code)
	require.Contains(t, p.Output(), `LLM_JSON_MODE="xml": must be one of schema, object`)
}

func TestUnreachableDatabaseEndsStartQuickly(t *testing.T) {
	t.Parallel()
	closed := apptest.FreeAddr(t)
	p := apptest.Start(t, binary(t), []string{"DATABASE_URL=postgres://u:p@" + closed + "/x?sslmode=disable"})
	code, err := p.Wait(10 * time.Second)
	require.NoError(t, err, "the start ends within 10 s")
	require.NotEqual(t, 0, code)
	out := p.Output()
	require.Contains(t, out, "DATABASE_URL")
	require.Contains(t, out, closed)
	require.Equal(t, 1, strings.Count(strings.TrimSpace(out), "\n")+1, "one sentence: %q", out)
}

func TestServeOnDatabaseURLAndShutDown(t *testing.T) {
	t.Parallel()
	_, dbURL := dbtest.Isolated(t)
	bin := binary(t)
	p := apptest.Start(t, bin, []string{"DATABASE_URL=" + dbURL})
	p.WaitReady(t, 30*time.Second)

	// A second instance on the same database starts too.
	q := apptest.Start(t, bin, []string{"DATABASE_URL=" + dbURL})
	q.WaitReady(t, 30*time.Second)

	require.NoError(t, p.Signal(syscall.SIGTERM))
	code, err := p.Wait(20 * time.Second)
	require.NoError(t, err)
	require.Equal(t, 0, code, p.Output())
}

// With METRICS_ADDR set, /metrics leaves the pages' address for its own, so an
// operator can keep it off the public one.
func TestMetricsAddrTakesMetricsOffThePagesAddress(t *testing.T) {
	t.Parallel()
	_, dbURL := dbtest.Isolated(t)
	metricsAddr := apptest.FreeAddr(t)
	p := apptest.Start(t, binary(t), []string{"DATABASE_URL=" + dbURL, "METRICS_ADDR=" + metricsAddr})
	p.WaitReady(t, 30*time.Second)
	status := func(url string) (int, string) {
		res, err := http.Get(url)
		require.NoError(t, err)
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, string(body)
	}
	code, _ := status("http://" + p.Addr + "/metrics")
	require.Equal(t, http.StatusNotFound, code, "the pages' address no longer serves /metrics")
	code, body := status("http://" + metricsAddr + "/metrics")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "checkup_queue_depth")
	code, _ = status("http://" + metricsAddr + "/healthz")
	require.Equal(t, http.StatusOK, code)
	code, _ = status("http://" + p.Addr + "/healthz")
	require.Equal(t, http.StatusOK, code, "probes still reach the pages' address")
}

// The server raises the garbage collector's GOGC and sets a soft memory limit, each
// when the environment leaves it unset, and leaves it to the environment otherwise.
func TestGarbageCollectorDefaultsYieldToTheEnvironment(t *testing.T) {
	t.Parallel()
	_, dbURL := dbtest.Isolated(t)
	bin := binary(t)
	gc := func(env ...string) string {
		p := apptest.Start(t, bin, append([]string{"DATABASE_URL=" + dbURL}, env...))
		p.WaitReady(t, 30*time.Second)
		res, err := http.Get("http://" + p.Addr + "/metrics")
		require.NoError(t, err)
		defer res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode)
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		var settings []string
		for line := range strings.Lines(string(body)) {
			if strings.HasPrefix(line, "go_gc_gogc_percent ") || strings.HasPrefix(line, "go_gc_gomemlimit_bytes ") {
				settings = append(settings, strings.TrimSpace(line))
			}
		}
		return strings.Join(settings, "; ")
	}
	// 120 MiB, or half the memory of the container the tests run in, when that is less.
	limit := strconv.FormatFloat(float64(memoryLimit(memlimit.FromCgroup)), 'g', -1, 64)
	require.Equal(t, "go_gc_gogc_percent 400; go_gc_gomemlimit_bytes "+limit, gc())
	require.Equal(t, "go_gc_gogc_percent 150; go_gc_gomemlimit_bytes 1.073741824e+09", gc("GOGC=150", "GOMEMLIMIT=1GiB"))
	require.Equal(t, "go_gc_gogc_percent 400; go_gc_gomemlimit_bytes 1.073741824e+09", gc("GOMEMLIMIT=1GiB"))
	require.Equal(t, "go_gc_gogc_percent 100; go_gc_gomemlimit_bytes "+limit, gc("GOGC=100"))
}

func TestEmbeddedClusterStartsAndStops(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "checkup-app-test-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	t.Cleanup(func() { os.RemoveAll(dir) })
	dataDir := filepath.Join(dir, "data")
	bin := binary(t)

	p := apptest.Start(t, bin, []string{"DATA_DIR=" + dataDir})
	p.WaitReady(t, 60*time.Second)
	require.FileExists(t, filepath.Join(dataDir, "pgdata", "postmaster.pid"))
	require.NoError(t, p.Signal(syscall.SIGINT))
	code, err := p.Wait(30 * time.Second)
	require.NoError(t, err)
	require.Equal(t, 0, code, p.Output())
	require.NoFileExists(t, filepath.Join(dataDir, "pgdata", "postmaster.pid"), "stopping the app stops its cluster")

	// A second start reuses the data directory.
	p = apptest.Start(t, bin, []string{"DATA_DIR=" + dataDir})
	p.WaitReady(t, 30*time.Second)
	require.NoError(t, p.Signal(syscall.SIGTERM))
	_, err = p.Wait(30 * time.Second)
	require.NoError(t, err)
}
