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
	"github.com/checkup-dev/checkup/db/locale"
)

// serve runs the dashboard until SIGINT or SIGTERM, then stops accepting requests,
// lets in-flight ones finish and stops the database it started. A second signal exits
// at once.
func serve(ctx context.Context, cfg config.Config, logger *slog.Logger) error {
	ctx, stopSignals := notifyShutdown(ctx, logger)
	defer stopSignals()
	life, closeLife := newLifecycle(logger)
	defer closeLife()

	listener, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("cannot listen on ADDR %s (%v): choose a free host:port", cfg.Addr, err)
	}
	httpd := &webServer{listener: listener, grace: cfg.ShutdownGrace + 5*time.Second}
	life.add("listener", httpd.stop) // closes the listener when serving never began
	providers, err := auth.LoadProviders(ctx, cfg)
	if err != nil {
		return err
	}
	locales, err := locale.New()
	if err != nil {
		return err
	}
	pool, err := startDatabase(ctx, cfg, logger, life)
	if err != nil {
		return err
	}
	bulk, err := db.OpenBulk(ctx, pool)
	if err != nil {
		return err
	}
	life.add("bulk pool", func() error { bulk.Close(); return nil })
	logger.LogAttrs(ctx, slog.LevelInfo, "configuration", config.Summary(cfg)...)
	svc, err := newServices(pool, cfg, logger, cfg.EmbeddedWorker, false)
	if err != nil {
		return err
	}
	if err := svc.start(ctx); err != nil {
		return err
	}
	life.addEarly("services", svc.stop) // the worker stops claiming at once and drains
	if err := svc.serveMetrics(cfg.MetricsAddr, life); err != nil {
		return err
	}
	site := web.New(web.Deps{Config: cfg, Pool: pool, BulkPool: bulk, Logger: logger, Providers: providers, Metrics: svc.metrics, Locales: locales})
	if err := site.Start(ctx); err != nil {
		return err
	}
	life.add("site", func() error {
		stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return site.Stop(stopCtx)
	})
	// Serving starts last, so it stops first: no request meets a stopped part.
	life.add("http server", httpd.stop)
	// Logged before serving: the listener already queues connections, and a client
	// that finds the server answering then always finds this line written.
	logger.Info("Checkup is ready", "url", cfg.BaseURL, "local_sign_in", cfg.LocalSignIn())
	serveErr := httpd.serve(site.HTTPServer(slog.NewLogLogger(logger.Handler(), slog.LevelWarn)))
	select {
	case err := <-serveErr:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	return nil
}

// webServer is the HTTP server on the listener ADDR opened: stopping it before it
// serves closes the listener, and after, shuts it down, letting the requests in flight
// finish within grace. Stopping it twice does nothing.
type webServer struct {
	listener net.Listener
	grace    time.Duration
	srv      *http.Server
	stopped  bool
}

// serve serves srv on the listener; the channel holds the error it ended with.
func (w *webServer) serve(srv *http.Server) <-chan error {
	w.srv = srv
	ended := make(chan error, 1)
	go func() { ended <- srv.Serve(w.listener) }()
	return ended
}

func (w *webServer) stop() error {
	if w.stopped {
		return nil
	}
	w.stopped = true
	if w.srv == nil {
		return w.listener.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), w.grace)
	defer cancel()
	if err := w.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
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
