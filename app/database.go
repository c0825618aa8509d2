package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/db"
	"github.com/checkup-dev/checkup/db/pglocal"
)

const embeddedDatabase = "checkup"

// superviseEvery is how often the private cluster is looked at, to be started again
// when it is found not running.
const superviseEvery = time.Second

// startDatabase opens the database (openDatabase) as a part of life, which closes it.
func startDatabase(ctx context.Context, cfg config.Config, logger *slog.Logger, life *lifecycle) (*pgxpool.Pool, error) {
	pool, closeDB, err := openDatabase(ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	life.add("database", func() error { closeDB(); return nil })
	return pool, nil
}

// openDatabase connects to DATABASE_URL, or starts the private cluster in DATA_DIR
// when it is empty, and migrates. The returned stop closes the pool and stops the
// cluster.
func openDatabase(ctx context.Context, cfg config.Config, logger *slog.Logger) (*pgxpool.Pool, func(), error) {
	url := cfg.DatabaseURL
	stopCluster := func() {}
	if url == "" {
		cluster, err := pglocal.Start(ctx, pglocal.Options{Dir: cfg.DataDir, Logger: logger})
		if err != nil {
			return nil, nil, err
		}
		supervise, endSupervision := context.WithCancel(context.WithoutCancel(ctx))
		go cluster.Supervise(supervise, superviseEvery)
		stopCluster = func() {
			endSupervision()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := cluster.Stop(ctx); err != nil {
				logger.Error("stopping the private PostgreSQL failed", "err", err)
			}
		}
		if err := cluster.CreateDatabase(ctx, embeddedDatabase, ""); err != nil {
			stopCluster()
			return nil, nil, err
		}
		url = cluster.URL(embeddedDatabase)
	}
	pool, err := db.Open(ctx, url)
	if err != nil {
		stopCluster()
		return nil, nil, err
	}
	if shared, err := db.SharesServerSessions(ctx, pool); err == nil && shared {
		logger.Warn("DATABASE_URL reaches PostgreSQL through a pooler that shares server sessions (PgBouncer in transaction mode): "+
			"statements are sent unprepared and wake-ups fall back to polling; session mode avoids both",
			"default_query_exec_mode", pool.Config().ConnConfig.DefaultQueryExecMode.String())
	}
	if err := db.Migrate(ctx, pool, logger); err != nil {
		pool.Close()
		stopCluster()
		return nil, nil, err
	}
	return pool, func() { pool.Close(); stopCluster() }, nil
}

func migrate(ctx context.Context, cfg config.Config, logger *slog.Logger) error {
	_, stop, err := openDatabase(ctx, cfg, logger)
	if err != nil {
		return err
	}
	stop()
	logger.Info("database migrated")
	return nil
}
