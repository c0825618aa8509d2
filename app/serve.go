package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db"
)

// serve runs the dashboard until SIGINT or SIGTERM, then stops accepting requests,
// lets in-flight ones finish and stops the database it started. A second signal exits
// at once.
func serve(ctx context.Context, cfg config.Config, logger *slog.Logger) error {
	ctx, stopSignals := notifyShutdown(ctx, logger)
	defer stopSignals()

	listener, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("cannot listen on ADDR %s (%v): choose a free host:port", cfg.Addr, err)
	}
	providers, err := auth.LoadProviders(ctx, cfg)
	if err != nil {
		listener.Close()
		return err
	}
	pool, closeDB, err := openDatabase(ctx, cfg, logger)
	if err != nil {
		listener.Close()
		return err
	}
	defer closeDB()
	bulk, err := db.OpenBulk(ctx, pool)
	if err != nil {
		listener.Close()
		return err
	}
	defer bulk.Close()
	logger.LogAttrs(ctx, slog.LevelInfo, "configuration", config.Summary(cfg)...)
	svc, err := newServices(pool, cfg, logger, cfg.EmbeddedWorker, false)
	if err != nil {
		listener.Close()
		return err
	}
	if err := svc.start(ctx); err != nil {
		listener.Close()
		return err
	}
	defer svc.stop() // runs before closeDB; a no-op after the stop below
	if cfg.MetricsAddr != "" {
		stopMetrics, err := svc.metrics.Serve(cfg.MetricsAddr)
		if err != nil {
			listener.Close()
			return err
		}
		defer stopMetrics()
	}

	site := web.New(web.Deps{Config: cfg, Pool: pool, BulkPool: bulk, Logger: logger, Providers: providers, Metrics: svc.metrics})
	if err := site.Start(ctx); err != nil {
		listener.Close()
		return err
	}
	defer func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = site.Stop(stopCtx)
	}()
	srv := site.HTTPServer(slog.NewLogLogger(logger.Handler(), slog.LevelWarn))
	// Logged before serving: the listener already queues connections, and a client
	// that finds the server answering then always finds this line written.
	logger.Info("Checkup is ready", "url", cfg.BaseURL, "local_sign_in", cfg.LocalSignIn())
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(listener) }()

	select {
	case err := <-serveErr:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	// The worker stops claiming at once and drains while HTTP shuts down; both end
	// before the deferred closeDB.
	stopped := make(chan error, 1)
	go func() { stopped <- svc.stop() }()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace+5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Warn("http shutdown", "err", err)
	}
	if err := <-stopped; err != nil {
		logger.Warn("shutdown", "err", err)
	}
	return nil
}

// notifyShutdown cancels the returned context at the first SIGINT/SIGTERM and exits
// the process at the second.
func notifyShutdown(parent context.Context, logger *slog.Logger) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig, ok := <-signals
		if !ok {
			return
		}
		logger.Info("signal received; finishing in-flight work (send again to exit now)", "signal", sig.String())
		cancel()
		if _, ok := <-signals; ok {
			logger.Warn("second signal: exiting now")
			os.Exit(130)
		}
	}()
	return ctx, func() { signal.Stop(signals); close(signals); cancel() }
}
