package pipeline_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// A deployment may run Checkup as a database role that can read and write the tables
// but does not own them. PostgreSQL lets only the owner merge the words' index's
// pending list, so no task can: the tasks complete all the same, and the pipeline
// warns of it on the first task only, not on every task after.
func TestRoleThatDoesNotOwnTheTablesIsWarnedOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	role := "checkup_user_" + uuid.NewString()[:8]
	if _, err := b.pool.Exec(ctx, `CREATE ROLE `+role+` LOGIN PASSWORD 'not-the-owner'`); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42501" && os.Getenv("CI") != "true" {
			t.Skipf("the test database's role cannot create roles (CREATEROLE): %v", err)
		}
		require.NoError(t, err)
	}
	t.Cleanup(func() {
		for _, stmt := range []string{`DROP OWNED BY ` + role, `DROP ROLE ` + role} {
			if _, err := b.pool.Exec(ctx, stmt); err != nil {
				t.Errorf("%s: %v", stmt, err)
			}
		}
	})
	for _, stmt := range []string{
		`GRANT USAGE ON SCHEMA public TO ` + role,
		`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ` + role,
		`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ` + role,
	} {
		_, err := b.pool.Exec(ctx, stmt)
		require.NoError(t, err, stmt)
	}
	cfg, err := pgxpool.ParseConfig(b.url)
	require.NoError(t, err)
	cfg.ConnConfig.User, cfg.ConnConfig.Password = role, "not-the-owner"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)

	logs := newLogCounts(testLogger(t).Handler())
	p := pipeline.New(pool, offlineProbe(), workertest.Options(pipeline.Options{}))
	workertest.StartWorker(t, pool, p, workers.Config{}, slog.New(logs))
	for range 2 {
		id := b.uploadSample(t)
		require.EqualValues(t, "completed", b.waitTerminal(t, id, time.Minute).Status)
	}
	const merge = "the words' index's pending list could not be merged"
	require.Equal(t, 1, logs.count(slog.LevelWarn, merge), "warned on the first task")
	require.Equal(t, 1, logs.count(slog.LevelDebug, merge), "said at debug level on the second")
}

// logCounts counts the records of each level and message, the debug records too, and
// passes them on to next as far as it logs them.
type logCounts struct {
	next slog.Handler
	seen *recordCounts
}

type recordCounts struct {
	mu sync.Mutex
	n  map[string]int // level and message → records
}

func newLogCounts(next slog.Handler) *logCounts {
	return &logCounts{next: next, seen: &recordCounts{n: map[string]int{}}}
}

func (l *logCounts) Enabled(context.Context, slog.Level) bool { return true }

func (l *logCounts) Handle(ctx context.Context, r slog.Record) error {
	l.seen.mu.Lock()
	l.seen.n[r.Level.String()+" "+r.Message]++
	l.seen.mu.Unlock()
	if !l.next.Enabled(ctx, r.Level) {
		return nil
	}
	return l.next.Handle(ctx, r)
}

func (l *logCounts) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &logCounts{next: l.next.WithAttrs(attrs), seen: l.seen}
}

func (l *logCounts) WithGroup(name string) slog.Handler {
	return &logCounts{next: l.next.WithGroup(name), seen: l.seen}
}

func (l *logCounts) count(level slog.Level, msg string) int {
	l.seen.mu.Lock()
	defer l.seen.mu.Unlock()
	return l.seen.n[level.String()+" "+msg]
}
