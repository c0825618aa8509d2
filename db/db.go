// Package db opens Checkup's PostgreSQL pool and migrates its schema. The SQL itself
// lives in migrations/ (embedded in the binary) and queries/ (compiled by sqlc into
// dbsqlc/).
package db

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"path"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrationLockID is the advisory lock held while migrating, so instances that start
// together migrate one after the other.
const migrationLockID = 0x636865636b7570 // "checkup"

// Open connects a pool to url and checks the server answers within a few seconds, so a
// wrong DATABASE_URL ends the start quickly with a sentence instead of hanging. Behind a
// pooler that shares server sessions between clients the pool sends its statements
// unprepared (SharesServerSessions).
func Open(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL is not a valid PostgreSQL URL (%v): use postgres://user:password@host:5432/dbname", err)
	}
	cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	cfg.AfterConnect = func(_ context.Context, conn *pgx.Conn) error {
		registerUUID(conn.TypeMap())
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("db: open: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 8*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, unreachable(cfg.ConnConfig.Host, cfg.ConnConfig.Port, err)
	}
	if unpreparedSafe(cfg.ConnConfig.DefaultQueryExecMode) {
		return pool, nil
	}
	shared, err := SharesServerSessions(pingCtx, pool)
	if err != nil {
		pool.Close()
		return nil, unreachable(cfg.ConnConfig.Host, cfg.ConnConfig.Port, err)
	}
	if !shared {
		return pool, nil
	}
	pool.Close()
	unprepared, err := unpreparedBehindPooler(cfg, url)
	if err != nil {
		return nil, err
	}
	pool, err = pgxpool.NewWithConfig(ctx, unprepared)
	if err != nil {
		return nil, fmt.Errorf("db: open: %w", err)
	}
	return pool, nil
}

// BulkConns is the size of the bulk pool (OpenBulk).
const BulkConns = 2

// OpenBulk opens a second, small pool on pool's database for the statements whose
// length grows with the data a person sent or asked for: an upload's COPY, a re-run's
// copy of its conversations. Kept apart, they can take at most BulkConns connections
// and never make a page's session lookup or a worker's heartbeat wait for one of the
// main pool's. Connections open on first use.
func OpenBulk(ctx context.Context, pool *pgxpool.Pool) (*pgxpool.Pool, error) {
	cfg := pool.Config()
	cfg.MaxConns, cfg.MinConns = BulkConns, 0
	bulk, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("db: open bulk pool: %w", err)
	}
	return bulk, nil
}

func unreachable(host string, port uint16, err error) error {
	where := net.JoinHostPort(host, fmt.Sprint(port))
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return fmt.Errorf("PostgreSQL at DATABASE_URL (%s) refused the connection: %s", where, pgErr.Message)
	}
	return fmt.Errorf("cannot reach PostgreSQL at DATABASE_URL (%s): check that the server runs there, or unset DATABASE_URL to use the private cluster", where)
}

// Migrate applies every pending migration, one at a time, and logs each before it
// starts: a migration that moves a large table can run for minutes before its
// "applied" line, and the operator should see which one is running. The advisory lock
// is held across all of them, so instances that start together migrate one after the
// other and only the one holding it logs.
//
// Behind a pooler that shares server sessions the lock, a session's, cannot be held
// (its release would reach another session and leave it taken): pending migrations are
// then refused with what to do.
func Migrate(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) error {
	provider, sqlDB, err := newProvider(pool)
	if err != nil {
		return err
	}
	defer sqlDB.Close()
	shared, err := SharesServerSessions(ctx, pool)
	if err != nil {
		return fmt.Errorf("db: migrate: %w", err)
	}
	if shared {
		return refusePendingBehindPooler(ctx, provider)
	}
	unlock, err := lockMigrations(ctx, sqlDB)
	if err != nil {
		return err
	}
	defer unlock()
	pending, err := pendingMigrations(ctx, provider)
	if err != nil {
		return fmt.Errorf("db: migrate: %w", err)
	}
	for _, m := range pending {
		logger.Info("applying migration", "version", m.Version, "file", path.Base(m.Path))
		r, err := provider.ApplyVersion(ctx, m.Version, true)
		if err != nil {
			return fmt.Errorf("db: migrate: %w", err)
		}
		logger.Info("applied migration", "version", r.Source.Version, "duration", r.Duration)
	}
	return nil
}

func refusePendingBehindPooler(ctx context.Context, provider *goose.Provider) error {
	pending, err := provider.HasPending(ctx)
	if err != nil {
		return fmt.Errorf("db: migrate: %w", err)
	}
	if pending {
		return errors.New("the database has migrations to apply, which cannot be done through a pooler in transaction mode: " +
			"run `checkup migrate` once with a DATABASE_URL that reaches PostgreSQL directly (or the pooler's session mode)")
	}
	return nil
}

// lockMigrations takes the migrations' session-level advisory lock on a connection of
// its own, waiting for another instance that holds it, and returns its release.
func lockMigrations(ctx context.Context, sqlDB *sql.DB) (unlock func(), err error) {
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(migrationLockID))
	if err != nil {
		return nil, fmt.Errorf("db: migration lock: %w", err)
	}
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: migration lock: %w", err)
	}
	if err := locker.SessionLock(ctx, conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("db: migration lock: %w", err)
	}
	return func() {
		_ = locker.SessionUnlock(context.WithoutCancel(ctx), conn)
		conn.Close()
	}, nil
}

// pendingMigrations lists the migrations above the database's version, in order. A
// migration below that version that was never applied is an error, as it is to goose's
// Up. The caller holds the lock, so no other instance applies any meanwhile.
func pendingMigrations(ctx context.Context, provider *goose.Provider) ([]*goose.Source, error) {
	pending, err := provider.HasPending(ctx)
	if err != nil || !pending {
		return nil, err
	}
	current, err := provider.GetDBVersion(ctx)
	if err != nil {
		return nil, err
	}
	var out []*goose.Source
	for _, s := range provider.ListSources() {
		if s.Version > current {
			out = append(out, s)
		}
	}
	return out, nil
}

// SchemaVersion returns the version the database is at and the newest one this binary
// knows, for /readyz.
func SchemaVersion(ctx context.Context, pool *pgxpool.Pool) (current, latest int64, err error) {
	provider, sqlDB, err := newProvider(pool)
	if err != nil {
		return 0, 0, err
	}
	defer sqlDB.Close()
	current, latest, err = provider.GetVersions(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("db: schema version: %w", err)
	}
	return current, latest, nil
}

func newProvider(pool *pgxpool.Pool) (*goose.Provider, *sql.DB, error) {
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, nil, fmt.Errorf("db: migrations: %w", err)
	}
	sqlDB := stdlib.OpenDBFromPool(pool)
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, fsys)
	if err != nil {
		sqlDB.Close()
		return nil, nil, fmt.Errorf("db: migrations: %w", err)
	}
	return provider, sqlDB, nil
}
