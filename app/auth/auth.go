// Package auth signs people in and keeps them signed in: the goth OAuth providers
// (GitHub, Google, any OpenID Connect issuer), the local name-and-email sign-in,
// server-side sessions in user_session, CSRF tokens, and Guard, the middleware that
// decides who may reach which route. Handlers learn whose request it is only from
// here (OwnerFrom), never from the request itself.
package auth

import (
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/flash"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/notified"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/views/layout"
)

// Session lifetimes: a session ends after SessionTTL without use, and after
// SessionMaxAge however much it is used.
const (
	SessionTTL    = 14 * 24 * time.Hour
	SessionMaxAge = 90 * 24 * time.Hour
)

// Deps is what Auth needs from the rest of the program.
type Deps struct {
	Pool      *pgxpool.Pool
	Logger    *slog.Logger
	Providers Providers // from LoadProviders; empty when none is configured
	// Page fills the frame of a full page for this request (user, CSRF token, flash).
	Page func(c echo.Context, title string) layout.Page
	// Locales are the catalogs the pages and messages are written from.
	Locales *locale.Bundle
}

// Auth holds the sign-in handlers and the Guard middleware.
type Auth struct {
	deps     Deps
	cfg      config.Config
	store    *store.Store
	cache    *sessionCache
	sessions *notified.Subscription // keeps cache true
	flash    flash.Messages
	// tokenFailures paces the failed token lookups of each client address.
	tokenFailures tokenFailures
}

// New returns the sign-in handlers and middleware for cfg. Start turns its session
// cache on.
func New(deps Deps, cfg config.Config) *Auth {
	cache := newSessionCache(time.Now)
	return &Auth{deps: deps, cfg: cfg, store: store.New(deps.Pool), cache: cache, sessions: sessionSubscription(deps, cache), flash: flash.Messages{Secure: cfg.SecureCookies()}}
}
