// Package dbtest gives tests a real, migrated PostgreSQL: the server at
// TEST_DATABASE_URL when set, otherwise a throwaway private cluster started on first
// use and stopped when the package's tests end. Use Tx for a transaction per test
// (rolled back), and Isolated where several connections must compete (claims,
// heartbeats, takeover): it gives a fresh database of its own.
//
// Every test package that uses it needs:
//
//	func TestMain(m *testing.M) { dbtest.Main(m) }
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/db"
	"github.com/checkup-dev/checkup/db/pglocal"
)

// server is the PostgreSQL the package's tests share. It is package state because
// TestMain and every test of the binary must find the same one.
var server struct {
	sync.Mutex
	started  bool
	err      error
	adminURL string // a URL to the "postgres" database, for CREATE/DROP DATABASE
	cluster  *pglocal.Cluster
	dir      string
	shared   *pgxpool.Pool
	created  []string
}

// Main runs the tests, then drops the databases they created and stops the throwaway
// cluster.
func Main(m *testing.M) {
	code := m.Run()
	if err := shutdown(); err != nil {
		fmt.Fprintln(os.Stderr, "dbtest:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// Pool returns a pool on the package's shared migrated database. Tests that write
// through it must use data of their own (their own users); prefer Tx or Isolated.
func Pool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	server.Lock()
	defer server.Unlock()
	if err := startLocked(); err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	if server.shared == nil {
		pool, err := newDatabaseLocked(context.Background())
		if err != nil {
			tb.Fatalf("dbtest: %v", err)
		}
		server.shared = pool
	}
	return server.shared
}

// Tx begins a transaction on the shared database that is rolled back when the test
// ends.
func Tx(tb testing.TB) pgx.Tx {
	tb.Helper()
	tx, err := Pool(tb).Begin(context.Background())
	if err != nil {
		tb.Fatalf("dbtest: begin: %v", err)
	}
	tb.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	return tx
}

// Isolated creates a fresh migrated database for this test alone and returns a pool
// on it and its URL (for child processes). It is dropped when the test ends.
func Isolated(tb testing.TB) (*pgxpool.Pool, string) {
	tb.Helper()
	server.Lock()
	if err := startLocked(); err != nil {
		server.Unlock()
		tb.Fatalf("dbtest: %v", err)
	}
	name, err := createFromTemplateLocked(context.Background())
	server.Unlock()
	if err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	dbURL := withDatabase(server.adminURL, name)
	pool, err := db.Open(context.Background(), dbURL)
	if err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	tb.Cleanup(func() {
		pool.Close()
		_ = dropDatabase(context.Background(), name)
	})
	return pool, dbURL
}

// AdminURL returns a URL to the test server's "postgres" database, for tests that
// manage the server itself.
func AdminURL(tb testing.TB) string {
	tb.Helper()
	server.Lock()
	defer server.Unlock()
	if err := startLocked(); err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	return server.adminURL
}

func startLocked() error {
	if server.started {
		return server.err
	}
	server.started = true
	server.err = start()
	return server.err
}

func start() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		server.adminURL = withDatabase(u, "postgres")
		return ensureTemplate(ctx)
	}
	dir, err := os.MkdirTemp("", "checkup-test-pg-")
	if err != nil {
		return err
	}
	// The cluster may run as another user (root runs it as postgres): let it in.
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	server.dir = dir
	cluster, err := pglocal.Start(ctx, pglocal.Options{Dir: dir, Throwaway: true})
	if err != nil {
		return fmt.Errorf("start a throwaway PostgreSQL (or set TEST_DATABASE_URL): %w", err)
	}
	server.cluster = cluster
	server.adminURL = cluster.URL("postgres")
	return ensureTemplate(ctx)
}

func shutdown() error {
	server.Lock()
	defer server.Unlock()
	if server.shared != nil {
		server.shared.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if server.cluster != nil {
		err := server.cluster.Stop(ctx)
		_ = os.RemoveAll(server.dir)
		return err
	}
	for _, name := range server.created {
		_ = dropDatabase(ctx, name)
	}
	return nil
}

func newDatabaseLocked(ctx context.Context) (*pgxpool.Pool, error) {
	name, err := createFromTemplateLocked(ctx)
	if err != nil {
		return nil, err
	}
	return db.Open(ctx, withDatabase(server.adminURL, name))
}

func createFromTemplateLocked(ctx context.Context) (string, error) {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "checkup_test_" + hex.EncodeToString(b)
	if err := adminExec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+templateName()); err != nil {
		return "", fmt.Errorf("create test database: %w", err)
	}
	server.created = append(server.created, name)
	return name, nil
}

func dropDatabase(ctx context.Context, name string) error {
	return adminExec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
}

func adminExec(ctx context.Context, stmt string) error {
	conn, err := pgx.Connect(ctx, server.adminURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, stmt)
	return err
}

func withDatabase(raw, name string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Path = "/" + name
	return u.String()
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
