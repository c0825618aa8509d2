// Package web is Checkup's HTTP server: one route table (routes.go), the middleware
// chain, one error handler and one render helper, and a file per resource.
package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/flash"
	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/app/metrics"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/notified"
	"github.com/checkup-dev/checkup/db/store"
)

// Deps is what the server needs from the rest of the program.
type Deps struct {
	Config config.Config
	Pool   *pgxpool.Pool
	// BulkPool runs what grows with the data a person sent or asked for (an upload's
	// COPY, a re-run's copy), apart from Pool's page reads and session lookups
	// (db.OpenBulk); nil runs them on Pool.
	BulkPool *pgxpool.Pool
	Logger   *slog.Logger
	// Providers are the identity providers, from auth.LoadProviders at start-up; empty
	// when none is configured (then only the local sign-in, if it is on, signs in).
	Providers auth.Providers
	// Metrics is the registry /metrics serves and HTTP requests are counted in; nil
	// builds one of the server's own.
	Metrics *metrics.Metrics
	// Ingest bounds what one upload may hold; zero fields take ingest.DefaultLimits.
	// MAX_UPLOAD_MB (Config) bounds the file as uploaded.
	Ingest ingest.Limits
	// Timeouts bound how long a client may take to send a request; zero fields take
	// the defaults.
	Timeouts Timeouts
	// Locales are the catalogs every page, message and download is written from; nil
	// loads them (locale.New), as tests do.
	Locales *locale.Bundle
	// ProgressCacheTTL is how long a running task's cached progress is used without an
	// announcement; zero is the poll's interval. Tests lengthen it, to tell an
	// announced change from an expired copy.
	ProgressCacheTTL time.Duration
}

// Server serves the dashboard.
type Server struct {
	deps       Deps
	echo       *echo.Echo
	auth       *auth.Auth
	store      *store.Store
	bulk       *store.Store // on Deps.BulkPool
	uploads    uploadSlots
	limits     *tokenLimits   // per API token
	userLimits *tokenLimits   // per user, all their tokens together
	downloads  *downloadSlots // the downloads being sent, each holding a connection
	bulkTurns  bulkTurns      // one bulk connection per user at a time
	spoolDisk  spoolDisk      // the room the spooled uploads may take together
	flash      flash.Messages
	// progressCache answers the polls of running tasks while progressUpdates, started
	// by Start, keeps it true.
	progressCache   *progressCache
	progressUpdates *notified.Subscription
}

// New builds the server and its routes.
func New(deps Deps) *Server {
	if deps.Metrics == nil {
		deps.Metrics = metrics.New(deps.Pool, metrics.Config{Stale: deps.Config.TaskStale, Logger: deps.Logger})
	}
	if deps.BulkPool == nil {
		deps.BulkPool = deps.Pool
	}
	deps.Timeouts = deps.Timeouts.withDefaults()
	if deps.Locales == nil {
		b, err := locale.New()
		if err != nil {
			panic(err) // the embedded catalogs, which the locale tests load
		}
		deps.Locales = b
	}
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	s := &Server{deps: deps, echo: e, store: store.New(deps.Pool), bulk: store.New(deps.BulkPool),
		limits:     newTokenLimits(deps.Config.APIRatePerMinute, deps.Config.APIRateBurst),
		userLimits: newTokenLimits(tokensPerUser*deps.Config.APIRatePerMinute, tokensPerUser*deps.Config.APIRateBurst),
		downloads:  newDownloadSlots(int(deps.Pool.Config().MaxConns / 2)),
		flash:      flash.Messages{Secure: deps.Config.SecureCookies()},
		spoolDisk:  spoolDisk{max: spoolUploads * deps.Config.MaxUploadBytes()}}
	s.progressCache = newProgressCache(time.Now, deps.ProgressCacheTTL)
	s.progressUpdates = progressSubscription(deps, s.progressCache)
	s.auth = auth.New(auth.Deps{Pool: deps.Pool, Logger: deps.Logger, Providers: deps.Providers, Page: s.page, Locales: deps.Locales}, deps.Config)
	e.HTTPErrorHandler = s.handleError
	s.routes()
	return s
}

// Start starts what the server runs beside its handlers: the subscriptions that keep
// its caches true to every instance, the sessions' to sign-outs (auth.Auth.Start) and
// the progress cache to the workers' changes. Until then both caches are off.
func (s *Server) Start(ctx context.Context) error {
	if err := s.auth.Start(ctx); err != nil {
		return err
	}
	return s.progressUpdates.Start(ctx)
}

// Stop stops what Start started.
func (s *Server) Stop(ctx context.Context) error {
	return errors.Join(s.progressUpdates.Stop(ctx), s.auth.Stop(ctx))
}

// Handler is the server as an http.Handler, for http.Server and tests.
func (s *Server) Handler() http.Handler { return s.echo }

// Routes lists every registered route, so tests can walk all of them (for example
// every task route with another user's id) including routes added later.
func (s *Server) Routes() []*echo.Route { return s.echo.Routes() }
