package auth_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
)

// localSignIn fills the sign-in page's local form like a browser: the pre-session
// cookie and the form's _csrf come from GET /login.
func localSignIn(t *testing.T, browser *authtest.Client, name, addr, next string) *http.Response {
	t.Helper()
	doc := document(t, browser.Get(t, "/login?next="+url.QueryEscape(next)))
	form := doc.Find(`form[data-testid="local-sign-in"]`)
	require.Equal(t, 1, form.Length(), "the local form is offered")
	token, _ := form.Find(`input[name="_csrf"]`).Attr("value")
	require.NotEmpty(t, token)
	hidden, _ := form.Find(`input[name="next"]`).Attr("value")
	values := url.Values{"_csrf": {token}, "name": {name}, "email": {addr}, "next": {hidden}}
	return browser.Send(t, formRequest(t, browser.BaseURL+"/auth/local", values))
}

func formRequest(t *testing.T, target string, values url.Values) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(values.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return req
}

func TestLocalSignInWhenOn(t *testing.T) {
	t.Parallel()
	b := setup(t, nil) // no provider, loopback address: local sign-in is on
	require.True(t, b.cfg.LocalSignIn())
	browser := authtest.Anonymous(t, b.url)

	doc := document(t, browser.Get(t, "/login"))
	require.Equal(t, 1, doc.Find(`[data-testid="local-signin-banner"]`).Length(), "the banner says local sign-in is on")

	addr := email("Hal", "Example.COM")
	resp := localSignIn(t, browser, "Hal <b>", addr, "/tasks/abc")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, authtest.Body(t, resp))
	require.Equal(t, "/tasks/abc", resp.Header.Get("Location"))
	require.NotNil(t, sessionCookie(resp))
	require.True(t, signedIn(t, browser))

	var provider, id, name string
	require.NoError(t, b.pool.QueryRow(context.Background(),
		"SELECT provider, provider_user_id, name FROM app_user WHERE email = $1", strings.ToLower(addr)).Scan(&provider, &id, &name))
	require.Equal(t, "local", provider)
	require.Equal(t, strings.ToLower(addr), id)
	require.Equal(t, "Hal <b>", name)

	// The same person signs in again: the same user, a new session.
	again := authtest.Anonymous(t, b.url)
	require.Equal(t, http.StatusSeeOther, localSignIn(t, again, "Hal", strings.ToUpper(addr), "").StatusCode)
	var users int
	require.NoError(t, b.pool.QueryRow(context.Background(),
		"SELECT count(*) FROM app_user WHERE provider = 'local' AND provider_user_id = $1", strings.ToLower(addr)).Scan(&users))
	require.Equal(t, 1, users)
}

func TestLocalSignInRefusesABadEmail(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	browser := authtest.Anonymous(t, b.url)
	resp := localSignIn(t, browser, "Ivy", "not an email <x@y>", "")
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	require.Nil(t, sessionCookie(resp))
	doc := document(t, resp)
	require.Contains(t, doc.Find(`[data-testid="login-error"]`).Text(), "Enter an email address")
	name, _ := doc.Find(`input[name="name"]`).Attr("value")
	require.Equal(t, "Ivy", name, "what was typed is kept")
}

func TestLocalSignInNeedsTheLoginPagesToken(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	browser := authtest.Anonymous(t, b.url)
	resp := browser.Send(t, formRequest(t, b.url+"/auth/local", url.Values{"email": {email("jo", "example.com")}}))
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Nil(t, sessionCookie(resp))
}

func TestLocalSignInIs404WhenAProviderIsConfigured(t *testing.T) {
	t.Parallel()
	b := setup(t, map[string]string{"GITHUB_CLIENT_ID": "id", "GITHUB_CLIENT_SECRET": "secret"})
	browser := authtest.Anonymous(t, b.url)
	doc := document(t, browser.Get(t, "/login"))
	require.Equal(t, 1, doc.Find(`[data-testid="sign-in-github"]`).Length())
	require.Zero(t, doc.Find(`[data-testid="local-sign-in"]`).Length())
	require.Zero(t, doc.Find(`[data-testid="local-signin-banner"]`).Length())

	token := document(t, browser.Get(t, "/login")).Find("body").AttrOr("hx-headers", "")
	require.NotEmpty(t, token)
	req := formRequest(t, b.url+"/auth/local", url.Values{"email": {email("kim", "example.com")}})
	req.Header.Set("HX-Request", "true")
	req.Header.Set("X-CSRF-Token", csrfFromHeaders(t, token))
	resp := browser.Send(t, req)
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "a valid token does not bring the route back")
	require.Nil(t, sessionCookie(resp))

	// GitHub sign-in starts at GitHub, with our callback.
	resp = browser.Get(t, "/auth/github")
	require.Equal(t, http.StatusFound, resp.StatusCode)
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, "github.com", loc.Host)
	require.Equal(t, b.url+"/auth/github/callback", loc.Query().Get("redirect_uri"))
}

func TestDevLoginOffersBothAndShowsTheBanner(t *testing.T) {
	t.Parallel()
	b := setup(t, map[string]string{"GITHUB_CLIENT_ID": "id", "GITHUB_CLIENT_SECRET": "secret", "AUTH_DEV_LOGIN": "true"})
	browser := authtest.Anonymous(t, b.url)
	doc := document(t, browser.Get(t, "/login"))
	require.Equal(t, 1, doc.Find(`[data-testid="sign-in-github"]`).Length())
	require.Equal(t, 1, doc.Find(`[data-testid="local-signin-banner"]`).Length())
	require.Equal(t, http.StatusSeeOther, localSignIn(t, browser, "Lu", email("lu", "example.com"), "").StatusCode)
}
