package workers_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"
)

// The other two clients of BenchmarkClaimThroughput: pgbench, and the floor of a Go
// client, both running the same two statements of analysis_task.sql.

// claimScript returns the ClaimTask and FinishTask statements of analysis_task.sql as
// the claim benchmark's clients send them: the claim's parameters written in, and the
// finish's id, owner and attempt as param names them.
func claimScript(tb testing.TB, param func(name string) string) (claim, finish string) {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join("..", "db", "queries", "analysis_task.sql"))
	require.NoError(tb, err)
	claim = strings.NewReplacer(
		"sqlc.narg('now')::timestamptz", "NULL::timestamptz",
		"sqlc.narg('id')::uuid", "NULL::uuid",
		"@stale::interval", "'2 minutes'::interval",
		"@worker", "'pgbench'",
	).Replace(query(tb, string(src), "ClaimTask"))
	finish = strings.NewReplacer(
		"sqlc.narg('now')::timestamptz", "NULL::timestamptz",
		"@status", "'completed'", "@error", "''",
		"@id", param("id"), "@owner_user_id", param("owner_user_id"), "@attempt", param("attempt"),
	).Replace(query(tb, string(src), "FinishTask"))
	return strings.TrimSuffix(claim, ";"), finish
}

// runPgbench runs claimScript as a pgbench script (prepared, like pgx) and returns
// pgbench's transactions per second (claims per second) and the CPU time pgbench used.
func runPgbench(tb testing.TB, pgbench string, bd *bundle, clients int, d time.Duration) (float64, time.Duration) {
	tb.Helper()
	claim, finish := claimScript(tb, func(name string) string { return ":" + name })
	script := filepath.Join(tb.TempDir(), "claim.sql")
	body := claim + " \\gset\n" + finish + "\n"
	require.NoError(tb, os.WriteFile(script, []byte(body), 0o644))

	cmd := exec.Command(pgbench, "-n", "-M", "prepared", "-f", script,
		"-c", strconv.Itoa(clients), "-j", "2", "-T", strconv.Itoa(int(d.Seconds())), bd.url)
	out, err := cmd.CombinedOutput()
	require.NoError(tb, err, "%s", out)
	m := regexp.MustCompile(`tps = ([0-9.]+)`).FindSubmatch(out)
	require.NotNil(tb, m, "%s", out)
	tps, err := strconv.ParseFloat(string(m[1]), 64)
	require.NoError(tb, err)
	return tps, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// floorClaimer is one connection of the floor client, with claimScript prepared on it.
type floorClaimer struct {
	conn          *pgconn.PgConn
	claim, finish *pgconn.StatementDescription
}

type floorClient []floorClaimer

// dialFloor opens n connections to bd's database and prepares claimScript on each.
func dialFloor(tb testing.TB, bd *bundle, n int) floorClient {
	tb.Helper()
	ctx := context.Background()
	positional := map[string]string{"id": "$1", "owner_user_id": "$2", "attempt": "$3"}
	claim, finish := claimScript(tb, func(name string) string { return positional[name] })
	fs := make(floorClient, n)
	for i := range fs {
		conn, err := pgconn.Connect(ctx, bd.url)
		require.NoError(tb, err)
		tb.Cleanup(func() { _ = conn.Close(context.Background()) })
		fs[i].conn = conn
		fs[i].claim, err = conn.Prepare(ctx, "claim", claim, nil)
		require.NoError(tb, err)
		fs[i].finish, err = conn.Prepare(ctx, "finish", finish, nil)
		require.NoError(tb, err)
	}
	return fs
}

// claimFor has every connection claim and finish tasks until d ends, the claim's id,
// owner and attempt sent back as the text they came in, and returns the claims.
func (fs floorClient) claimFor(tb testing.TB, d time.Duration) int {
	tb.Helper()
	ctx := context.Background()
	end := time.Now().Add(d)
	var claims atomic.Int64
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Go(func() {
			for time.Now().Before(end) {
				res := f.conn.ExecStatement(ctx, f.claim, nil, nil, nil).Read()
				if res.Err != nil {
					tb.Errorf("floor claim: %v", res.Err)
					return
				}
				if len(res.Rows) == 0 {
					return // every task claimed, as claimFor stops
				}
				row := res.Rows[0] // id, owner_user_id, title, stage, attempt, …
				if res := f.conn.ExecStatement(ctx, f.finish, [][]byte{row[0], row[1], row[4]}, nil, nil).Read(); res.Err != nil {
					tb.Errorf("floor finish: %v", res.Err)
					return
				}
				claims.Add(1)
			}
		})
	}
	wg.Wait()
	return int(claims.Load())
}

// query returns the SQL of the named query in a sqlc query file, comments removed.
func query(tb testing.TB, src, name string) string {
	tb.Helper()
	_, rest, found := strings.Cut(src, "-- name: "+name+" ")
	require.True(tb, found, "query %s", name)
	rest, _, _ = strings.Cut(rest, "-- name: ")
	var lines []string
	for _, line := range strings.Split(rest, "\n")[1:] {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			lines = append(lines, line)
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// findPgbench finds pgbench on PATH, through pg_config, or next to the server
// binaries under /usr/lib/postgresql.
func findPgbench(tb testing.TB) string {
	tb.Helper()
	if path, err := exec.LookPath("pgbench"); err == nil {
		return path
	}
	candidates, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		candidates = append(candidates, filepath.Join(strings.TrimSpace(string(out)), "pgbench"))
	}
	slices.Reverse(candidates) // the newest version first
	for _, path := range candidates {
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	tb.Skip("pgbench not found (PATH, pg_config --bindir, /usr/lib/postgresql/*/bin)")
	return ""
}
