package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/htmx"
	"github.com/checkup-dev/checkup/db/store"
)

// Access is how much of a session a route needs.
type Access int

const (
	// Private routes need a signed-in user; it is what every route gets unless the
	// route table says otherwise, so a new page cannot be public by accident.
	Private Access = iota
	// Public routes (sign-in pages) read the session but do not need one.
	Public
	// Open routes (health, metrics, static files) read no session at all, so they
	// cost no database work and answer while the database is down.
	Open
	// Token routes (the API) are authorised by a personal access token in the
	// Authorization header alone: a session cookie is ignored, so no page of another
	// site can act through the visitor's browser, and no CSRF token is needed.
	Token
)

// touchEvery is how stale last_seen_at may get before a request slides the session.
const touchEvery = time.Minute

// Guard is the middleware in front of every route: access(route pattern) says what
// the route needs. It loads the session, sends visitors who are not signed in away
// from private routes (303 to /login for pages, 401 with HX-Redirect for htmx), and
// refuses state-changing requests without the CSRF token (403, nothing changed).
// Token routes need a valid bearer token instead (401 otherwise) and read no cookie.
func (a *Auth) Guard(access func(route string) Access) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			level := access(c.Path())
			c.Set(accessKey, level)
			switch level {
			case Open:
				return next(c)
			case Token:
				if err := a.loadToken(c); err != nil {
					return err
				}
				return next(c)
			}
			if err := a.loadSession(c); err != nil {
				return err
			}
			if _, ok := UserFrom(c); !ok && level == Private {
				return a.sendToLogin(c)
			}
			if !safeMethod(c.Request().Method) && !validCSRF(c) {
				return errCSRF
			}
			return next(c)
		}
	}
}

// loadSession puts the session's user and CSRF token on the request. An unknown or
// expired cookie is dropped, and the request continues as anonymous.
func (a *Auth) loadSession(c echo.Context) error {
	if token := cookieValue(c, a.cookieName(SessionCookie)); token != "" {
		hash := hashToken(token)
		sess, err := a.session(c.Request().Context(), hash)
		switch {
		case errors.Is(err, store.ErrNotFound):
			a.clearCookie(c, a.cookieName(SessionCookie), "/")
		case err != nil:
			return fmt.Errorf("auth: load session: %w", err)
		default:
			c.Set(userKey, sess.User)
			c.Set(csrfKey, CSRFTokenFor(token))
			a.touch(c, hash, sess.LastSeenAt)
			return nil
		}
	}
	if pre := cookieValue(c, a.cookieName(preSessionCookie)); pre != "" {
		c.Set(csrfKey, CSRFTokenFor(pre))
	}
	return nil
}

// session returns the live session of hash, from the session cache when it is there.
func (a *Auth) session(ctx context.Context, hash []byte) (store.Session, error) {
	if sess, ok := a.cache.Get(key(hash)); ok && time.Now().Before(sess.ExpiresAt) {
		return sess, nil
	}
	mark := a.cache.Mark()
	sess, err := a.store.SessionByHash(ctx, hash)
	if err == nil {
		a.cache.Put(key(hash), sess, mark)
	}
	return sess, err
}

// touch slides the session when it was last seen more than a minute ago, and drops it
// from this instance's cache so the next request reads its new expiry. A failure is
// logged, not shown: the session is still valid for this request.
func (a *Auth) touch(c echo.Context, hash []byte, lastSeen time.Time) {
	if time.Since(lastSeen) < touchEvery {
		return
	}
	if err := a.store.TouchSession(c.Request().Context(), hash, SessionTTL, SessionMaxAge); err != nil {
		a.logger(c).Warn("sliding the session failed", "err", err)
	}
	a.cache.Evict(key(hash))
}

// sendToLogin answers a visitor who is not signed in on a private route.
func (a *Auth) sendToLogin(c echo.Context) error {
	r := c.Request()
	if htmx.IsRequest(r) {
		next := ""
		if u, err := url.Parse(r.Header.Get(htmx.HeaderCurrentURL)); err == nil {
			next = safeNext(u.RequestURI())
		}
		c.Response().Header().Set(htmx.HeaderRedirect, loginURL(next))
		return c.String(http.StatusUnauthorized, a.Localizer(c).T("signin.session_ended"))
	}
	next := ""
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		next = safeNext(r.URL.RequestURI())
	}
	return c.Redirect(http.StatusSeeOther, loginURL(next))
}

func loginURL(next string) string {
	if next == "" {
		return "/login"
	}
	return "/login?next=" + url.QueryEscape(next)
}

func safeMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}
