package auth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
)

// Personal access tokens let a script or a CI job act as the user who made them, on
// the Token routes (/api/v1) only. A token is "ck_" and 32 random bytes; like a session
// token only its SHA-256 is stored. A Token route reads no cookie: the browser never
// sends a bearer token by itself, so a page of another site cannot make a request
// that carries one, and the API needs no CSRF token.

// TokenPrefix starts every token, so a leaked one is recognisable (secret scanners,
// logs) and never mistaken for a session cookie.
const TokenPrefix = "ck_"

// tokenHintLen is how much of a token its owner's list shows: the prefix and four
// characters (24 of its 256 bits), enough to tell tokens apart.
const tokenHintLen = len(TokenPrefix) + 4

// tokenKey is the request value that holds the id of the token a request came with.
const tokenKey = "auth.token"

// IssueToken makes a token named name for owner and returns it with its stored row.
// The token is in no table: the caller shows it once.
func IssueToken(ctx context.Context, st *store.Store, owner store.Owner, name string) (string, store.APIToken, error) {
	token := TokenPrefix + newToken()
	row, err := st.CreateAPIToken(ctx, owner, store.NewAPIToken{Name: name, TokenHash: hashToken(token), Hint: token[:tokenHintLen]})
	if err != nil {
		return "", store.APIToken{}, fmt.Errorf("auth: issue token: %w", err)
	}
	return token, row, nil
}

// TokenIDFrom returns the id of the token the request was authorised by, for the
// per-token rate limit; false on routes that are not Token routes.
func TokenIDFrom(c echo.Context) (int64, bool) {
	id, ok := c.Get(tokenKey).(int64)
	return id, ok
}

var (
	errNoToken  = echo.NewHTTPError(http.StatusUnauthorized, locale.Msg("api_refused.no_token"))
	errBadToken = echo.NewHTTPError(http.StatusUnauthorized, locale.Msg("api_refused.bad_token"))
)

// loadToken authorises a Token route's request by its bearer token and puts the
// token's user on it, or answers 401 with a WWW-Authenticate challenge.
func (a *Auth) loadToken(c echo.Context) error {
	token, sent := bearer(c.Request())
	h := c.Response().Header()
	if !sent {
		h.Set(echo.HeaderWWWAuthenticate, `Bearer realm="checkup"`)
		return errNoToken
	}
	now := time.Now()
	if wait := a.tokenFailures.blocked(c.Request(), now); wait > 0 {
		secs := max(1, int(math.Ceil(wait.Seconds())))
		h.Set("Retry-After", strconv.Itoa(secs))
		return echo.NewHTTPError(http.StatusTooManyRequests, fmt.Sprintf(
			"Too many requests with tokens that are not valid came from this address: try again in %d s, with a valid token.", secs))
	}
	if !strings.HasPrefix(token, TokenPrefix) {
		a.tokenFailures.failed(c.Request(), now)
		h.Set(echo.HeaderWWWAuthenticate, `Bearer realm="checkup", error="invalid_token"`)
		return errBadToken
	}
	tu, err := a.store.APITokenByHash(c.Request().Context(), hashToken(token))
	switch {
	case errors.Is(err, store.ErrNotFound):
		a.tokenFailures.failed(c.Request(), now)
		h.Set(echo.HeaderWWWAuthenticate, `Bearer realm="checkup", error="invalid_token"`)
		return errBadToken
	case err != nil:
		return fmt.Errorf("auth: load token: %w", err)
	}
	c.Set(userKey, tu.User)
	c.Set(tokenKey, tu.TokenID)
	if tu.LastUsedAt == nil || time.Since(*tu.LastUsedAt) >= touchEvery {
		if err := a.store.TouchAPIToken(c.Request().Context(), tu.TokenID, tu.User.Owner()); err != nil {
			a.logger(c).Warn("recording the token's use failed", "err", err)
		}
	}
	return nil
}

// bearer returns the token of an Authorization: Bearer header, and whether the
// request sent one at all (any Authorization header counts as an attempt).
func bearer(r *http.Request) (string, bool) {
	v := r.Header.Get(echo.HeaderAuthorization)
	if v == "" {
		return "", false
	}
	scheme, token, ok := strings.Cut(v, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", true
	}
	return strings.TrimSpace(token), true
}
