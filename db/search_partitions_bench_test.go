package db_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbtest"
)

// Sizes of the database BenchmarkSearchPartitionsMigration migrates.
const (
	migratedTasks            = 4
	migratedDocuments        = 40_000 // per task
	migratedWordsPerDocument = 250
)

// BenchmarkSearchPartitionsMigration times the migration that partitions the search
// documents (00018) on a database holding four tasks of 40,000 documents of 250 words,
// with a task row updated every 10 ms beside it, as a running worker's heartbeats
// update theirs. It reports the migration's time and the slowest update, which waits
// while the migration holds its locks. See BENCHMARKS.md.
//
//	go test ./db -run '^$' -bench SearchPartitionsMigration -benchtime 1x -v
func BenchmarkSearchPartitionsMigration(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		pool, _ := dbtest.Isolated(b)
		provider := migrationsProvider(b, pool)
		ctx := context.Background()
		_, err := provider.DownTo(ctx, 17)
		require.NoError(b, err)
		task := fillSearchDocuments(b, pool)

		stop, slowest := make(chan struct{}), make(chan time.Duration)
		go func() {
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			var worst time.Duration
			for {
				select {
				case <-stop:
					slowest <- worst
					return
				case <-tick.C:
				}
				start := time.Now()
				if _, err := pool.Exec(ctx, `UPDATE analysis_task SET heartbeat_at = now() WHERE id = $1`, task); err != nil {
					b.Error(err)
				}
				worst = max(worst, time.Since(start))
			}
		}()
		b.StartTimer()
		start := time.Now()
		_, err = provider.Up(ctx)
		took := time.Since(start)
		b.StopTimer()
		close(stop)
		require.NoError(b, err)
		b.ReportMetric(took.Seconds(), "migration-s")
		b.ReportMetric(float64((<-slowest).Microseconds())/1000, "slowest-update-ms")
		b.StartTimer()
	}
}

// migrationsProvider runs the repository's migrations on pool.
func migrationsProvider(tb testing.TB, pool *pgxpool.Pool) *goose.Provider {
	tb.Helper()
	sqlDB := stdlib.OpenDBFromPool(pool)
	tb.Cleanup(func() { _ = sqlDB.Close() })
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, os.DirFS("migrations"))
	require.NoError(tb, err)
	return provider
}

// fillSearchDocuments stores migratedTasks tasks of search documents made of words
// spread over a vocabulary of 30,000, and returns the first task's id.
func fillSearchDocuments(tb testing.TB, pool *pgxpool.Pool) string {
	tb.Helper()
	ctx := context.Background()
	var owner int64
	require.NoError(tb, pool.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('local', 'migrated') RETURNING id`).Scan(&owner))
	var first string
	for k := range migratedTasks {
		var task string
		require.NoError(tb, pool.QueryRow(ctx, `INSERT INTO analysis_task (owner_user_id, title) VALUES ($1, 't') RETURNING id`, owner).Scan(&task))
		_, err := pool.Exec(ctx, `INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, message_count)
			SELECT $1, $2, i, 'c' || i, '[]', 0 FROM generate_series(1, $3::int) AS i`, task, owner, migratedDocuments)
		require.NoError(tb, err)
		_, err = pool.Exec(ctx, `INSERT INTO task_search (task_id, owner_user_id, seq, doc)
			SELECT $1, $2, i, array_to_tsvector(ARRAY(SELECT 'w' || ((i * 7919 + j * 104729) % 30000) FROM generate_series(1, $4::int) AS j))
			FROM generate_series(1, $3::int) AS i`, task, owner, migratedDocuments, migratedWordsPerDocument)
		require.NoError(tb, err)
		if k == 0 {
			first = task
		}
	}
	_, err := pool.Exec(ctx, `VACUUM ANALYZE task_search`)
	require.NoError(tb, err)
	return first
}
