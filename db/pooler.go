package db

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// execModeSetting is the DATABASE_URL parameter that says how pgx sends statements.
const execModeSetting = "default_query_exec_mode"

// SharesServerSessions reports whether pool's client connections share server
// sessions, as behind PgBouncer in transaction or statement mode. pgx prepares every
// statement under a name on its connection and caches it; there another client's
// server session already has that name (42P05) or lacks it (26000), and every query
// fails. Two connections of the pool are asked for their server's process id in turn,
// without preparing anything: a connection of its own session always gets the same
// one, and never the other's.
func SharesServerSessions(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	a, err := pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	defer a.Release()
	b, err := pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	defer b.Release()
	var pids [4]int32
	for i := range pids {
		conn := a
		if i%2 == 1 {
			conn = b
		}
		if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()", pgx.QueryExecModeSimpleProtocol).Scan(&pids[i]); err != nil {
			return false, err
		}
	}
	return pids[0] != pids[2] || pids[1] != pids[3] || pids[0] == pids[1], nil
}

// unpreparedSafe reports whether mode sends no statement that a later round trip
// relies on, so that it works whichever server session each round trip reaches.
func unpreparedSafe(mode pgx.QueryExecMode) bool {
	return mode == pgx.QueryExecModeCacheDescribe || mode == pgx.QueryExecModeExec || mode == pgx.QueryExecModeSimpleProtocol
}

// unpreparedBehindPooler is cfg with its statements sent unprepared: pgx's
// cache_describe mode keeps each statement's parameter and result types per
// connection and sends the statement itself with every execution, in one round trip.
// It is an error when DATABASE_URL asks for prepared statements.
func unpreparedBehindPooler(cfg *pgxpool.Config, url string) (*pgxpool.Config, error) {
	if strings.Contains(url, execModeSetting) {
		return nil, fmt.Errorf("DATABASE_URL reaches PostgreSQL through a pooler that shares server sessions (PgBouncer in transaction mode), "+
			"where prepared statements clash: set %s=cache_describe in DATABASE_URL, or use the pooler's session mode", execModeSetting)
	}
	cfg = cfg.Copy()
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	return cfg, nil
}
