package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/store"
)

// SessionCookie is the name of the cookie that holds the session token; over https it
// has the __Host- prefix (Auth.cookieName).
const SessionCookie = "checkup_session"

// SignIn is the one way a session starts (OAuth callback, local sign-in, test
// helpers): it upserts the user, retires the session of previousToken (the cookie the
// browser presented, may be empty) and returns the new session's cookie token. Only the
// token's SHA-256 is stored.
func SignIn(ctx context.Context, st *store.Store, id store.Identity, previousToken string) (store.User, string, error) {
	token := newToken()
	var previous []byte
	if previousToken != "" {
		previous = hashToken(previousToken)
	}
	user, err := st.SignIn(ctx, id, store.NewSession{TokenHash: hashToken(token), TTL: SessionTTL}, previous)
	if err != nil {
		return store.User{}, "", fmt.Errorf("auth: sign in: %w", err)
	}
	return user, token, nil
}

// StartSession starts a session of the given lifetime for an existing user and
// returns its cookie token, without a sign-in: for test helpers, which also use a
// negative ttl to make an expired session.
func StartSession(ctx context.Context, st *store.Store, userID int64, ttl time.Duration) (string, error) {
	token := newToken()
	if err := st.StartSession(ctx, userID, store.NewSession{TokenHash: hashToken(token), TTL: ttl}); err != nil {
		return "", fmt.Errorf("auth: start session: %w", err)
	}
	return token, nil
}

// newToken returns 32 random bytes as a cookie-safe string.
func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b)
}

// hashToken is what user_session stores for a token.
func hashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// setCookie sets an HttpOnly, SameSite=Lax cookie, Secure when BASE_URL is https.
// maxAge 0 makes a browser-session cookie; a negative maxAge deletes the cookie.
func (a *Auth) setCookie(c echo.Context, name, value, path string, maxAge int) {
	c.SetCookie(&http.Cookie{
		Name: name, Value: value, Path: path, MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: a.cfg.SecureCookies(),
	})
}

// cookieName is the name a cookie of the whole site (Path=/) goes by. Over https it is
// a __Host- cookie, which a browser takes only from this very host, sent over https:
// a sibling subdomain or a page on plain http cannot plant a session of its own
// (signing the visitor in as someone else, whose uploads would then be theirs), a
// pre-session whose CSRF token it knows, or an OAuth state of its own.
func (a *Auth) cookieName(name string) string {
	if a.cfg.SecureCookies() {
		return "__Host-" + name
	}
	return name
}

func (a *Auth) setSessionCookie(c echo.Context, token string) {
	a.setCookie(c, a.cookieName(SessionCookie), token, "/", int(SessionMaxAge.Seconds()))
}

func (a *Auth) clearCookie(c echo.Context, name, path string) {
	a.setCookie(c, name, "", path, -1)
}

// cookieValue returns the value of the named cookie, or "".
func cookieValue(c echo.Context, name string) string {
	if ck, err := c.Cookie(name); err == nil {
		return ck.Value
	}
	return ""
}
