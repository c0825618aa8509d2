package auth_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/oauth2-proxy/mockoidc"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
)

// startIdP runs a real OpenID Connect provider for the test.
func startIdP(t *testing.T) *mockoidc.MockOIDC {
	t.Helper()
	m, err := mockoidc.Run()
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Shutdown() })
	return m
}

func oidcEnv(m *mockoidc.MockOIDC, extra ...string) map[string]string {
	env := map[string]string{
		"OIDC_DISCOVERY_URL": m.DiscoveryEndpoint(), "OIDC_CLIENT_ID": m.ClientID, "OIDC_CLIENT_SECRET": m.ClientSecret,
	}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	return env
}

// beginOIDC starts a sign-in and returns the provider's answer: a redirect to our
// callback with its code and state.
func beginOIDC(t *testing.T, m *mockoidc.MockOIDC, browser *authtest.Client, path string) string {
	t.Helper()
	resp := browser.Get(t, path)
	require.Equal(t, http.StatusFound, resp.StatusCode)
	authURL := resp.Header.Get("Location")
	require.True(t, strings.HasPrefix(authURL, m.AuthorizationEndpoint()), authURL)

	var state *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "checkup_oauth_state" {
			state = c
		}
	}
	require.NotNil(t, state, "the state is remembered in a cookie")
	require.True(t, state.HttpOnly)
	require.Equal(t, http.SameSiteLaxMode, state.SameSite)
	require.Equal(t, "/auth/", state.Path)

	req, err := http.NewRequest(http.MethodGet, authURL, nil)
	require.NoError(t, err)
	resp = browser.Send(t, req)
	require.Equal(t, http.StatusFound, resp.StatusCode, authtest.Body(t, resp))
	callback := resp.Header.Get("Location")
	require.True(t, strings.HasPrefix(callback, browser.BaseURL+"/auth/oidc/callback?"), callback)
	return callback
}

func getURL(t *testing.T, browser *authtest.Client, raw string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, raw, nil)
	require.NoError(t, err)
	return browser.Send(t, req)
}

func TestOpenIDConnectSignInSessionAndSignOut(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	b := setup(t, oidcEnv(idp))
	addr := email("ann", "example.com")
	subject := "sub-" + addr
	idp.QueueUser(&mockoidc.MockUser{Subject: subject, Email: addr, EmailVerified: true, PreferredUsername: "Ann"})
	browser := authtest.Anonymous(t, b.url)

	// A private page sends the visitor to /login, remembering where they were going.
	resp := browser.Get(t, "/tasks/abc")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/login?next=%2Ftasks%2Fabc", resp.Header.Get("Location"))

	doc := document(t, browser.Get(t, "/login?next=%2Ftasks%2Fabc"))
	link, ok := doc.Find(`[data-testid="sign-in-oidc"]`).Attr("href")
	require.True(t, ok, "the provider's button is on the sign-in page")
	require.Equal(t, "/auth/oidc?next=%2Ftasks%2Fabc", link)
	require.Zero(t, doc.Find(`[data-testid="local-signin-banner"]`).Length(), "no local sign-in with a provider")
	require.Zero(t, doc.Find(`[data-testid="local-sign-in"]`).Length())

	// Redirect to the provider, its redirect back, the callback.
	callback := beginOIDC(t, idp, browser, link)
	resp = getURL(t, browser, callback)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, authtest.Body(t, resp))
	require.Equal(t, "/tasks/abc", resp.Header.Get("Location"))
	session := sessionCookie(resp)
	require.NotNil(t, session, "the callback sets the session cookie")
	require.True(t, session.HttpOnly)
	require.Equal(t, http.SameSiteLaxMode, session.SameSite)
	require.True(t, signedIn(t, browser), "an authenticated page works")

	var name, stored string
	require.NoError(t, b.pool.QueryRow(context.Background(),
		"SELECT name, email FROM app_user WHERE provider = 'oidc' AND provider_user_id = $1", subject).Scan(&name, &stored))
	require.Equal(t, "Ann", name)
	require.Equal(t, addr, stored)

	// Replaying the callback is refused: its state was used up. The refusal page is a
	// full page for the signed-in user, with the CSRF token in its sign-out form.
	resp = getURL(t, browser, callback)
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Nil(t, sessionCookie(resp))
	doc = document(t, resp)
	require.Contains(t, doc.Find(`[data-testid="sign-in-problem"]`).Text(), "expired or was already used")
	require.Contains(t, doc.Find(`[data-testid="current-user"]`).Text(), addr)
	token, ok := doc.Find(`form[action="/logout"] input[name="_csrf"]`).Attr("value")
	require.True(t, ok)
	require.Equal(t, auth.CSRFTokenFor(session.Value), token)
	hxHeaders, _ := doc.Find("body").Attr("hx-headers")
	require.Contains(t, hxHeaders, token, "htmx sends the same token as a header")

	// Sign out revokes the session: the old cookie no longer signs anyone in.
	browser.CSRFToken = token
	resp = browser.PostForm(t, "/logout", nil)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/login", resp.Header.Get("Location"))
	require.Contains(t, document(t, browser.Get(t, "/login")).Find(`[data-testid="flash"]`).Text(), "You are signed out.")
	resp = withCookie(t, b, "/", session)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/login", resp.Header.Get("Location"))
}

func TestOpenIDConnectSignInRefreshesTheUserAndRotatesTheSession(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	b := setup(t, oidcEnv(idp))
	first, second := email("bo", "example.com"), email("bo.renamed", "example.com")
	idp.QueueUser(&mockoidc.MockUser{Subject: "sub-" + first, Email: first, EmailVerified: true, PreferredUsername: "Bo"})
	idp.QueueUser(&mockoidc.MockUser{Subject: "sub-" + first, Email: second, EmailVerified: true, PreferredUsername: "Bo Renamed"})
	browser := authtest.Anonymous(t, b.url)

	resp := getURL(t, browser, beginOIDC(t, idp, browser, "/auth/oidc"))
	require.Equal(t, "/", resp.Header.Get("Location"))
	old := sessionCookie(resp)
	require.NotNil(t, old)

	resp = getURL(t, browser, beginOIDC(t, idp, browser, "/auth/oidc"))
	fresh := sessionCookie(resp)
	require.NotNil(t, fresh)
	require.NotEqual(t, old.Value, fresh.Value, "a new token at every sign-in")
	require.Equal(t, "/login", withCookie(t, b, "/", old).Header.Get("Location"), "the previous session was retired")
	require.Equal(t, "/tasks", withCookie(t, b, "/", fresh).Header.Get("Location"))

	var users int
	var name, stored string
	require.NoError(t, b.pool.QueryRow(context.Background(),
		"SELECT count(*) OVER (), name, email FROM app_user WHERE provider = 'oidc' AND provider_user_id = $1",
		"sub-"+first).Scan(&users, &name, &stored))
	require.Equal(t, 1, users, "upserted by (provider, provider_user_id)")
	require.Equal(t, "Bo Renamed", name)
	require.Equal(t, second, stored)
}

func TestForgedStateIsRefused(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	b := setup(t, oidcEnv(idp))
	browser := authtest.Anonymous(t, b.url)
	callback := beginOIDC(t, idp, browser, "/auth/oidc")
	u, err := url.Parse(callback)
	require.NoError(t, err)

	forged := u.Query()
	forged.Set("state", strings.Repeat("A", len(forged.Get("state"))))
	resp := browser.Get(t, "/auth/oidc/callback?"+forged.Encode())
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Nil(t, sessionCookie(resp))
	require.Contains(t, document(t, resp).Find(`[data-testid="sign-in-problem"]`).Text(), "does not belong to the sign-in this browser started")

	// The refused attempt used the state up: the genuine answer is refused as well.
	resp = getURL(t, browser, callback)
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Nil(t, sessionCookie(resp))
	require.False(t, signedIn(t, browser))
}

func TestCallbackWithoutStartingIsRefused(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	b := setup(t, oidcEnv(idp))
	resp := authtest.Anonymous(t, b.url).Get(t, "/auth/oidc/callback?code=x&state=y")
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Nil(t, sessionCookie(resp))
	require.Equal(t, http.StatusNotFound, authtest.Anonymous(t, b.url).Get(t, "/auth/github").StatusCode,
		"an unconfigured provider does not exist")
}

func TestUnreachableDiscoveryEndsStartWithASentence(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	env := oidcEnv(idp)
	env["OIDC_DISCOVERY_URL"] = idp.Issuer() + "/no-such-document"
	vars := func(k string) string { return env[k] }
	cfg, _, err := config.Load(vars)
	require.NoError(t, err)
	_, err = auth.LoadProviders(context.Background(), cfg)
	require.ErrorContains(t, err, "OIDC_DISCOVERY_URL")
	require.ErrorContains(t, err, "404")
}

// Over https the OAuth state is a __Host- cookie for the whole site, and a state
// cookie of the plain name, as a sibling subdomain could plant, starts no sign-in.
func TestOAuthStateIsHostOnlyOverHTTPS(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	b := setup(t, oidcEnv(idp, "BASE_URL", "https://127.0.0.1"))
	resp := authtest.Anonymous(t, b.url).Get(t, "/auth/oidc")
	require.Equal(t, http.StatusFound, resp.StatusCode)
	var state *http.Cookie
	for _, c := range resp.Cookies() {
		require.NotEqual(t, "checkup_oauth_state", c.Name, "no cookie of the plain name")
		if c.Name == "__Host-checkup_oauth_state" {
			state = c
		}
	}
	require.NotNil(t, state)
	require.True(t, state.Secure)
	require.Equal(t, "/", state.Path)
	require.Empty(t, state.Domain)

	raw, err := base64.RawURLEncoding.DecodeString(state.Value)
	require.NoError(t, err)
	var started struct {
		State string `json:"s"`
	}
	require.NoError(t, json.Unmarshal(raw, &started))
	query := url.Values{"code": {"x"}, "state": {started.State}}
	planted := withCookie(t, b, "/auth/oidc/callback?"+query.Encode(), &http.Cookie{Name: "checkup_oauth_state", Value: state.Value})
	require.Equal(t, http.StatusForbidden, planted.StatusCode)
	require.Contains(t, authtest.Body(t, planted), "This sign-in has expired or was already used.", "no state is read from the plain name")
	for _, c := range planted.Cookies() {
		require.NotContains(t, c.Name, auth.SessionCookie, "no session is started")
	}
}
