package auth

import (
	"crypto/subtle"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/locale"
)

// Begin starts an OAuth sign-in: GET /auth/{provider}?next=/path. It remembers a
// random state in a cookie and sends the browser to the provider.
func (a *Auth) Begin(c echo.Context) error {
	p, ok := a.deps.Providers.find(c.Param("provider"))
	if !ok {
		return echo.ErrNotFound
	}
	state := newToken()
	sess, err := p.BeginAuth(state)
	if err != nil {
		return err
	}
	authURL, err := sess.GetAuthURL()
	if err != nil {
		return err
	}
	st := oauthState{State: state, Provider: p.Name(), Session: sess.Marshal(), Next: safeNext(c.QueryParam("next"))}
	if err := a.setState(c, st); err != nil {
		return err
	}
	return c.Redirect(http.StatusFound, authURL)
}

// Callback finishes an OAuth sign-in: GET /auth/{provider}/callback. The state must
// match the one this browser started with (compared in constant time) and is used up
// either way; then the code is exchanged, the user looked up, the email domain checked
// and a session started.
func (a *Auth) Callback(c echo.Context) error {
	p, ok := a.deps.Providers.find(c.Param("provider"))
	if !ok {
		return echo.ErrNotFound
	}
	st, ok := a.takeState(c)
	if !ok {
		return a.problem(c, http.StatusForbidden, locale.Msg("signin.expired"), nil)
	}
	got := c.QueryParam("state")
	if st.Provider != p.Name() || subtle.ConstantTimeCompare([]byte(st.State), []byte(got)) != 1 {
		a.logger(c).Warn("oauth state mismatch refused", "provider", p.Name())
		return a.problem(c, http.StatusForbidden, locale.Msg("signin.state_mismatch"), nil)
	}
	if e := c.QueryParam("error"); e != "" {
		return a.problem(c, http.StatusForbidden, locale.Msg("signin.provider_error", "Provider", p.Label, "Error", e), nil)
	}
	sess, err := p.UnmarshalSession(st.Session)
	if err != nil {
		return err
	}
	// Only the code goes to the provider (not redirect_uri or anything else the query
	// carries), and the session needs the concrete goth provider, not our wrapper.
	if _, err := sess.Authorize(p.Provider, url.Values{"code": {c.QueryParam("code")}}); err != nil {
		a.logger(c).Warn("oauth code exchange failed", "provider", p.Name(), "err", err)
		return a.problem(c, http.StatusBadGateway, locale.Msg("signin.not_confirmed", "Provider", p.Label), nil)
	}
	gu, err := p.FetchUser(sess)
	if err != nil {
		a.logger(c).Warn("oauth user lookup failed", "provider", p.Name(), "err", err)
		return a.problem(c, http.StatusBadGateway, locale.Msg("signin.no_identity", "Provider", p.Label), nil)
	}
	id, ok := identityFrom(gu)
	if !ok {
		return a.problem(c, http.StatusForbidden, locale.Msg("signin.no_subject", "Provider", p.Label), nil)
	}
	verified := false
	if len(a.cfg.AllowedDomains) > 0 { // only the allow-list asks
		if verified, err = p.emailVerified(c.Request().Context(), gu); err != nil {
			a.logger(c).Warn("oauth email verification lookup failed", "provider", p.Name(), "err", err)
			return a.problem(c, http.StatusBadGateway, locale.Msg("signin.no_verification", "Provider", p.Label), nil)
		}
	}
	return a.finishSignIn(c, id, verified, safeNext(st.Next))
}
