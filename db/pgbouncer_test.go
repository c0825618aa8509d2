package db_test

import (
	"context"
	"github.com/jackc/pgx/v5/pgtype"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/checkup-dev/checkup/db"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// queryFromManyConnections runs the same sqlc query from many client connections at
// once, as the pages and the worker do: behind a pooler that hands one server
// connection to several clients, a named prepared statement of one client collides with
// another's (42P05) or is missing (26000).
func queryFromManyConnections(t *testing.T, dbURL string) (pgx.QueryExecMode, error) {
	t.Helper()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbURL)
	require.NoError(t, err)
	defer pool.Close()
	var g errgroup.Group
	for range 8 {
		g.Go(func() error {
			for range 20 {
				if _, err := dbsqlc.New().MaintenanceTaskCounts(ctx, pool, dbsqlc.MaintenanceTaskCountsParams{Stale: pgtype.Interval{Microseconds: 60e6, Valid: true}}); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return pool.Config().ConnConfig.DefaultQueryExecMode, g.Wait()
}

func TestOpenBehindPgBouncerInTransactionModeNeedsNoNamedStatements(t *testing.T) {
	t.Parallel()
	_, dbURL := dbtest.Isolated(t)
	mode, err := queryFromManyConnections(t, dbtest.PgBouncer(t, dbURL, "transaction", 3))
	require.NoError(t, err, "no prepared-statement clash behind a transaction pooler")
	require.Equal(t, pgx.QueryExecModeCacheDescribe, mode)
}

func TestOpenBehindPgBouncerInSessionModeKeepsTheStatementCache(t *testing.T) {
	t.Parallel()
	_, dbURL := dbtest.Isolated(t)
	mode, err := queryFromManyConnections(t, dbtest.PgBouncer(t, dbURL, "session", 20))
	require.NoError(t, err)
	require.Equal(t, pgx.QueryExecModeCacheStatement, mode)
}

func TestOpenBehindPgBouncerInTransactionModeRefusesPreparedStatementsAskedFor(t *testing.T) {
	t.Parallel()
	_, dbURL := dbtest.Isolated(t)
	through := dbtest.PgBouncer(t, dbURL, "transaction", 3) + "&default_query_exec_mode=cache_statement"
	_, err := db.Open(context.Background(), through)
	require.ErrorContains(t, err, "set default_query_exec_mode=cache_describe in DATABASE_URL")
}

func TestMigrateBehindPgBouncerInTransactionModeSaysToMigrateDirectly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	through := dbtest.PgBouncer(t, emptyDatabase(t, "migrate_behind_pooler"), "transaction", 3)
	pool, err := db.Open(ctx, through)
	require.NoError(t, err)
	defer pool.Close()
	require.ErrorContains(t, db.Migrate(ctx, pool, slog.New(slog.DiscardHandler)), "run `checkup migrate` once with a DATABASE_URL that reaches PostgreSQL directly")
}

func TestMigrateBehindPgBouncerInTransactionModeWithNothingPending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, dbURL := dbtest.Isolated(t)
	pool, err := db.Open(ctx, dbtest.PgBouncer(t, dbURL, "transaction", 3))
	require.NoError(t, err)
	defer pool.Close()
	require.NoError(t, db.Migrate(ctx, pool, slog.New(slog.DiscardHandler)))
}
