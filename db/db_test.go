package db_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/checkup-dev/checkup/db"
	"github.com/checkup-dev/checkup/db/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// emptyDatabase creates an unmigrated database and returns its URL.
func emptyDatabase(t *testing.T, name string) string {
	t.Helper()
	ctx := context.Background()
	admin := dbtest.AdminURL(t)
	conn, err := pgx.Connect(ctx, admin)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "CREATE DATABASE "+name)
	require.NoError(t, err)
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), admin)
		if err == nil {
			_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(context.Background())
		}
	})
	u, _ := url.Parse(admin)
	u.Path = "/" + name
	return u.String()
}

// openEmptyDatabase creates an unmigrated database and returns a pool on it, closed
// when the test ends, and its URL.
func openEmptyDatabase(t *testing.T, name string) (*pgxpool.Pool, string) {
	t.Helper()
	dbURL := emptyDatabase(t, name)
	pool, err := db.Open(context.Background(), dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool, dbURL
}

func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := emptyDatabase(t, "migrate_concurrently")
	log := newMigrationLog(t, dbURL)

	var g errgroup.Group
	for range 3 {
		g.Go(func() error {
			pool, err := db.Open(ctx, dbURL)
			if err != nil {
				return err
			}
			defer pool.Close()
			return db.Migrate(ctx, pool, slog.New(log))
		})
	}
	require.NoError(t, g.Wait(), "instances starting together all migrate without error")
	require.Equal(t, everyMigration(t), log.lines(), "each migration is applied and logged once, by one instance")

	pool, err := db.Open(ctx, dbURL)
	require.NoError(t, err)
	defer pool.Close()
	current, latest, err := db.SchemaVersion(ctx, pool)
	require.NoError(t, err)
	require.Equal(t, latest, current)
	require.Positive(t, current)
}

// Each migration is logged before it starts as well as after it is recorded, so a long
// one shows which it is while it runs.
func TestMigrateLogsEachMigrationBeforeItRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, dbURL := openEmptyDatabase(t, "migrate_logs")
	log := newMigrationLog(t, dbURL)
	require.NoError(t, db.Migrate(ctx, pool, slog.New(log)))
	require.Equal(t, everyMigration(t), log.lines())

	log.reset()
	require.NoError(t, db.Migrate(ctx, pool, slog.New(log)))
	require.Empty(t, log.lines(), "an up-to-date schema logs nothing")
}

// A migration below the database's version that was never applied stops the start, as
// goose's Up would, instead of being skipped.
func TestMigrateRefusesAMissingMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, dbURL := openEmptyDatabase(t, "migrate_missing")
	require.NoError(t, db.Migrate(ctx, pool, slog.New(slog.DiscardHandler)))
	_, err := pool.Exec(ctx, `DELETE FROM goose_db_version WHERE version_id = 8`)
	require.NoError(t, err)

	log := newMigrationLog(t, dbURL)
	err = db.Migrate(ctx, pool, slog.New(log))
	require.ErrorContains(t, err, "missing")
	require.Empty(t, log.lines())
}

// everyMigration is the log of migrating an empty database: each migration file's
// version before it is recorded, then after.
func everyMigration(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("migrations/*.sql")
	require.NoError(t, err)
	var want []string
	for _, f := range files {
		name := filepath.Base(f)
		version, _, _ := strings.Cut(name, "_")
		v, err := strconv.Atoi(version)
		require.NoError(t, err)
		want = append(want, fmt.Sprintf("applying migration %d %s, not recorded", v, name),
			fmt.Sprintf("applied migration %d, recorded", v))
	}
	return want
}

// migrationLog is a slog.Handler that keeps each record's message and version, and
// whether goose had recorded that version when the record was logged; one may be
// shared by several migrating instances.
type migrationLog struct {
	probe *pgxpool.Pool
	mu    sync.Mutex
	got   []string
}

func newMigrationLog(t *testing.T, dbURL string) *migrationLog {
	t.Helper()
	probe, err := pgxpool.New(context.Background(), dbURL)
	require.NoError(t, err)
	t.Cleanup(probe.Close)
	return &migrationLog{probe: probe}
}

func (l *migrationLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *migrationLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *migrationLog) WithGroup(string) slog.Handler            { return l }

func (l *migrationLog) Handle(ctx context.Context, r slog.Record) error {
	var version int64
	line := r.Message
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "version":
			version = a.Value.Int64()
			line += fmt.Sprint(" ", version)
		case "file":
			line += " " + a.Value.String()
		}
		return true
	})
	var recorded bool
	if err := l.probe.QueryRow(ctx, `SELECT EXISTS (SELECT FROM goose_db_version WHERE version_id = $1)`, version).Scan(&recorded); err != nil {
		return err
	}
	if recorded {
		line += ", recorded"
	} else {
		line += ", not recorded"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, line)
	return nil
}

func (l *migrationLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.got)
}

func (l *migrationLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = nil
}

func TestSchemaConstraints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := dbtest.Tx(t)
	var alice, bob int64
	require.NoError(t, tx.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('local','alice') RETURNING id`).Scan(&alice))
	require.NoError(t, tx.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('local','bob') RETURNING id`).Scan(&bob))
	var task string
	require.NoError(t, tx.QueryRow(ctx, `INSERT INTO analysis_task (owner_user_id, title) VALUES ($1, 't') RETURNING id`, alice).Scan(&task))

	// A child row cannot claim another owner's task: the composite foreign key refuses it.
	_, err := tx.Exec(ctx, "SAVEPOINT s")
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, message_count)
		VALUES ($1, $2, 1, 'c1', '[]', 0)`, task, bob)
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "23503", pgErr.Code, "foreign key violation")
	_, err = tx.Exec(ctx, "ROLLBACK TO SAVEPOINT s")
	require.NoError(t, err)

	// An unknown status is refused.
	_, err = tx.Exec(ctx, `UPDATE analysis_task SET status = 'done' WHERE id = $1`, task)
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "23514", pgErr.Code, "check violation")
}

// Deleting a task deletes every row it holds (its conversations, their findings and
// search documents) and nothing of another task's.
func TestDeletingATaskDeletesItsRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := dbtest.Tx(t)
	var owner int64
	require.NoError(t, tx.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('local','ann') RETURNING id`).Scan(&owner))
	tasks := make([]string, 2)
	for i := range tasks {
		require.NoError(t, tx.QueryRow(ctx, `INSERT INTO analysis_task (owner_user_id, title) VALUES ($1, 't') RETURNING id`, owner).Scan(&tasks[i]))
		_, err := tx.Exec(ctx, `INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, message_count)
			VALUES ($1, $2, 1, 'c1', '[]', 0)`, tasks[i], owner)
		require.NoError(t, err)
		_, err = tx.Exec(ctx, `INSERT INTO task_finding (task_id, owner_user_id, conversation_seq, idx, type, category, title,
			severity, confidence, priority_score) VALUES ($1, $2, 1, 0, 'RISK', 'tool_error', 'A tool failed', 3, 0.9, 50)`, tasks[i], owner)
		require.NoError(t, err)
		_, err = tx.Exec(ctx, `INSERT INTO task_search (task_id, owner_user_id, seq, doc) VALUES ($1, $2, 1, 'refund'::tsvector)`, tasks[i], owner)
		require.NoError(t, err)
	}
	_, err := tx.Exec(ctx, `DELETE FROM analysis_task WHERE id = $1`, tasks[0])
	require.NoError(t, err)
	for _, table := range []string{"task_conversation", "task_finding", "task_search"} {
		var gone, kept int
		require.NoError(t, tx.QueryRow(ctx, `SELECT count(*) FILTER (WHERE task_id = $1), count(*) FILTER (WHERE task_id = $2) FROM `+table,
			tasks[0], tasks[1]).Scan(&gone, &kept))
		require.Zero(t, gone, "%s of the deleted task", table)
		require.Equal(t, 1, kept, "%s of the other task", table)
	}
}

// Refreshing the statistics of a task's conversations gathers those of the columns
// queries filter and sort on, and skips the transcripts, diagnoses and metadata, which
// none does: decompressing and comparing them was half of each refresh.
func TestAnalyzeSkipsColumnsNoQueryFiltersOn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := dbtest.Tx(t)
	var owner int64
	require.NoError(t, tx.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('local','stats') RETURNING id`).Scan(&owner))
	var task string
	require.NoError(t, tx.QueryRow(ctx, `INSERT INTO analysis_task (owner_user_id, title) VALUES ($1, 't') RETURNING id`, owner).Scan(&task))
	_, err := tx.Exec(ctx, `INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, metadata, message_count,
			diagnosis, diagnosis_status, failure_score, max_severity)
		SELECT $1, $2, s, 'c' || s, '[{"role":"user","content":"hi"}]', '{"channel":"web"}', 1,
			'{"outcome":"resolved","findings":[]}', 'done', s / 10.0, s % 5
		FROM generate_series(1, 10) AS s`, task, owner)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `ANALYZE task_conversation`)
	require.NoError(t, err)
	rows, err := tx.Query(ctx, `SELECT attname FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'task_conversation'`)
	require.NoError(t, err)
	analyzed, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Subset(t, analyzed, []string{"task_id", "seq", "qc_status", "label", "failure_score", "max_severity", "message_count", "risk_flags", "finding_categories"})
	for _, column := range []string{"messages", "metadata", "diagnosis", "content_hash", "qc_reason", "diagnosis_error", "diagnosis_pass", "diagnosed_at", "failed_turn"} {
		require.NotContains(t, analyzed, column)
	}
}

// The transcripts and the diagnoses are compressed with lz4 where the server has it,
// with its default elsewhere. Changing a column's type drops its compression setting
// (00013 had to set it again), which nothing else would notice.
func TestLargeValuesCompressWithLz4(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	var lz4 bool
	require.NoError(t, pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_settings
		WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals))`).Scan(&lz4))
	want := "" // the server's default, pglz
	if lz4 {
		want = "l"
	}
	for _, column := range []string{"messages", "diagnosis"} {
		var method string
		require.NoError(t, pool.QueryRow(ctx, `SELECT attcompression::text FROM pg_attribute
			WHERE attrelid = 'task_conversation'::regclass AND attname = $1`, column).Scan(&method))
		require.Equal(t, want, method, "task_conversation.%s: compression (lz4 available: %v)", column, lz4)
	}
}

// The search documents, which no compressor shortens, are stored without an attempt
// (00019) in every partition: a partition made without the setting would go back to
// compressing each one in vain.
func TestSearchDocumentsAreNotCompressed(t *testing.T) {
	t.Parallel()
	rows, err := dbtest.Pool(t).Query(context.Background(), `SELECT t.relid::regclass::text, a.attstorage::text
		FROM pg_partition_tree('task_search') t JOIN pg_attribute a ON a.attrelid = t.relid AND a.attname = 'doc'`)
	require.NoError(t, err)
	storage, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]string, error) {
		var s [2]string
		return s, r.Scan(&s[0], &s[1])
	})
	require.NoError(t, err)
	require.Len(t, storage, 17, "the table and its 16 partitions")
	for _, s := range storage {
		require.Equal(t, "e", s[1], "%s.doc: storage", s[0])
	}
}

// While another instance's quality pass holds the search documents in an open
// transaction, 00019 waits for it in short tries, so the searches that arrive meanwhile
// are not queued behind it until the pass's transaction ends; then it applies.
func TestSearchStorageMigrationLetsSearchesThroughWhileItWaits(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.Isolated(t)
	ctx := context.Background()
	provider := migrationsProvider(t, pool)
	_, err := provider.DownTo(ctx, 18)
	require.NoError(t, err)

	pass, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = pass.Rollback(ctx) }()
	_, err = pass.Exec(ctx, `LOCK TABLE task_search IN ROW EXCLUSIVE MODE`) // what its inserts take
	require.NoError(t, err)

	migrated := make(chan error, 1)
	go func() {
		_, err := provider.UpByOne(ctx)
		migrated <- err
	}()
	require.Eventually(t, func() bool {
		var waiting bool
		err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks
			WHERE NOT granted AND mode = 'AccessExclusiveLock' AND relation = 'task_search'::regclass)`).Scan(&waiting)
		return err == nil && waiting
	}, 30*time.Second, 5*time.Millisecond, "the migration tries to lock the table")
	search, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var documents int
	require.NoError(t, pool.QueryRow(search, `SELECT count(*) FROM task_search`).Scan(&documents),
		"a search while the migration waits for the pass")

	require.NoError(t, pass.Commit(ctx))
	require.NoError(t, <-migrated)
	var storage string
	require.NoError(t, pool.QueryRow(ctx, `SELECT attstorage::text FROM pg_attribute
		WHERE attrelid = 'task_search'::regclass AND attname = 'doc'`).Scan(&storage))
	require.Equal(t, "e", storage)
}

func TestOpenUnreachable(t *testing.T) {
	t.Parallel()
	start := time.Now()
	_, err := db.Open(context.Background(), "postgres://u:p@127.0.0.1:1/x?sslmode=disable")
	require.Error(t, err)
	require.Contains(t, err.Error(), "DATABASE_URL")
	require.Contains(t, err.Error(), "127.0.0.1:1")
	require.Less(t, time.Since(start), 10*time.Second)

	_, err = db.Open(context.Background(), "not a url ::")
	require.ErrorContains(t, err, "DATABASE_URL is not a valid PostgreSQL URL")
}
