package pglocal_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/pglocal"
)

// tempDir is a directory the cluster's user can enter (t.TempDir is private to us).
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pglocal-test-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestStartStopReuse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(tempDir(t), "data")

	c, err := pglocal.Start(ctx, pglocal.Options{Dir: dir, Throwaway: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	require.NoError(t, c.CreateDatabase(ctx, "app", ""))
	require.NoError(t, c.CreateDatabase(ctx, "app", ""), "creating an existing database is a no-op")

	conn, err := pgx.Connect(ctx, c.URL("app"))
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)")
	require.NoError(t, err)
	require.NoError(t, conn.Close(ctx))

	// A second Start on the running cluster adopts it instead of failing.
	again, err := pglocal.Start(ctx, pglocal.Options{Dir: dir})
	require.NoError(t, err)
	require.Equal(t, c.Port(), again.Port())
	require.Equal(t, c.URL("app"), again.URL("app"), "the adopted server is reached the same way")

	require.NoError(t, c.Stop(ctx))
	require.NoError(t, c.Stop(ctx), "Stop is safe twice")
	_, err = pgx.Connect(ctx, c.URL("app"))
	require.Error(t, err, "the server is down after Stop")

	// Restarting reuses the data directory: the data is still there.
	c2, err := pglocal.Start(ctx, pglocal.Options{Dir: dir, Throwaway: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c2.Stop(context.Background()) })
	conn, err = pgx.Connect(ctx, c2.URL("app"))
	require.NoError(t, err)
	defer conn.Close(ctx)
	var v int
	require.NoError(t, conn.QueryRow(ctx, "SELECT v FROM kept").Scan(&v))
	require.Equal(t, 42, v)
}

func TestPasswordRequired(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, err := pglocal.Start(ctx, pglocal.Options{Dir: tempDir(t), Throwaway: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	cfg, err := pgx.ParseConfig(c.URL("postgres"))
	require.NoError(t, err)
	cfg.Password = "wrong"
	connectCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = pgx.ConnectConfig(connectCtx, cfg)
	require.ErrorContains(t, err, "password authentication failed")
}

func TestMissingBinaries(t *testing.T) {
	t.Parallel()
	_, err := pglocal.Start(context.Background(), pglocal.Options{Dir: tempDir(t), BinDir: t.TempDir()})
	require.ErrorIs(t, err, pglocal.ErrNoBinaries)
	require.Contains(t, err.Error(), "apt-get install postgresql")
	require.Contains(t, err.Error(), "DATABASE_URL")
}

func TestUnusableDir(t *testing.T) {
	t.Parallel()
	file := filepath.Join(tempDir(t), "a-file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	_, err := pglocal.Start(context.Background(), pglocal.Options{Dir: filepath.Join(file, "data")})
	require.ErrorContains(t, err, "DATA_DIR")
	require.ErrorContains(t, err, "not usable")

	notCluster := filepath.Join(tempDir(t), "data")
	require.NoError(t, os.MkdirAll(filepath.Join(notCluster, "pgdata"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(notCluster, "pgdata", "junk"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(notCluster, "password"), []byte("pw"), 0o600))
	_, err = pglocal.Start(context.Background(), pglocal.Options{Dir: notCluster})
	require.ErrorContains(t, err, "holds no PostgreSQL cluster")
}

func TestGuestLeavesServerToItsHolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := tempDir(t)
	holder, err := pglocal.Start(ctx, pglocal.Options{Dir: dir, Throwaway: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = holder.Stop(context.Background()) })

	// Another live process holds the server, as `app` does when `app worker` starts
	// beside it on the same DATA_DIR.
	other := exec.Command("sleep", "60")
	require.NoError(t, other.Start())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "holder.pid"), []byte(strconv.Itoa(other.Process.Pid)), 0o600))

	guest, err := pglocal.Start(ctx, pglocal.Options{Dir: dir})
	require.NoError(t, err)
	require.NoError(t, guest.Stop(ctx))
	conn, err := pgx.Connect(ctx, holder.URL("postgres"))
	require.NoError(t, err, "a guest's Stop leaves the holder's server running")
	require.NoError(t, conn.Close(ctx))

	// Once the holder is gone, the next process adopts the server and stops it.
	require.NoError(t, other.Process.Kill())
	_ = other.Wait()
	adopter, err := pglocal.Start(ctx, pglocal.Options{Dir: dir})
	require.NoError(t, err)
	require.NoError(t, adopter.Stop(ctx))
	_, err = pgx.Connect(ctx, holder.URL("postgres"))
	require.Error(t, err, "the adopter stopped the server")
}

// TestSupervisedClusterIsStartedAgainAfterItDies kills the postmaster of a supervised
// cluster: it is started again on the same port with its data, and once Stop is
// called it stays stopped.
func TestSupervisedClusterIsStartedAgainAfterItDies(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := filepath.Join(tempDir(t), "data")
	c, err := pglocal.Start(ctx, pglocal.Options{Dir: dir, Throwaway: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	require.NoError(t, c.CreateDatabase(ctx, "app", ""))
	go c.Supervise(ctx, 50*time.Millisecond)

	pidFile, err := os.ReadFile(filepath.Join(dir, "pgdata", "postmaster.pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.SplitN(string(pidFile), "\n", 2)[0])
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))

	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := pgx.Connect(ctx, c.URL("app"))
		if err == nil {
			conn.Close(ctx)
			if b, _ := os.ReadFile(filepath.Join(dir, "pgdata", "postmaster.pid")); !strings.HasPrefix(string(b), strconv.Itoa(pid)+"\n") {
				break // a new postmaster answers
			}
		}
		require.True(t, time.Now().Before(deadline), "the cluster was not started again: %v", err)
		time.Sleep(20 * time.Millisecond)
	}

	require.NoError(t, c.Stop(ctx))
	_, err = pgx.Connect(ctx, c.URL("app"))
	require.Error(t, err, "stopped on purpose, it stays stopped")
}
