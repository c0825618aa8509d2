package auth_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/db/store"
)

func TestUnknownAndExpiredSessionsLeadToLogin(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	user := authtest.NewSession(t, b.pool, email("cy", "example.com")).User
	expired, err := auth.StartSession(context.Background(), store.New(b.pool), user.ID, -time.Second)
	require.NoError(t, err)

	for name, value := range map[string]string{"unknown": "no-such-session", "expired": expired} {
		resp := withCookie(t, b, "/tasks", &http.Cookie{Name: auth.SessionCookie, Value: value})
		require.Equal(t, http.StatusSeeOther, resp.StatusCode, name)
		require.Equal(t, "/login?next=%2Ftasks", resp.Header.Get("Location"), name)
		var cleared bool
		for _, c := range resp.Cookies() {
			cleared = cleared || (c.Name == auth.SessionCookie && c.MaxAge < 0)
		}
		require.True(t, cleared, "%s: the dead cookie is dropped", name)
	}
}

func TestHtmxRequestsWithoutSessionGet401AndARedirectHeader(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	req, err := http.NewRequest(http.MethodGet, b.url+"/tasks/abc/progress", nil)
	require.NoError(t, err)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Current-URL", b.url+"/tasks/abc")
	resp := authtest.Anonymous(t, b.url).Send(t, req)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Equal(t, "/login?next=%2Ftasks%2Fabc", resp.Header.Get("HX-Redirect"))
}

func TestOpenRoutesNeedNoSession(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	anon := authtest.Anonymous(t, b.url)
	for _, path := range []string{"/healthz", "/readyz", "/static/css/app.css", "/login"} {
		require.Equal(t, http.StatusOK, anon.Get(t, path).StatusCode, path)
	}
	require.Equal(t, "/login", anon.Get(t, "/").Header.Get("Location"))
}

func TestSignedOutSessionRowCannotBeUsed(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	c := authtest.SignIn(t, b.pool, b.url, email("di", "example.com"))
	s := authtest.NewSession(t, b.pool, c.User.Email) // the same user in another browser
	require.True(t, signedIn(t, c))

	require.Equal(t, http.StatusSeeOther, c.PostForm(t, "/logout", nil).StatusCode)
	require.False(t, signedIn(t, c))
	require.Equal(t, "/tasks", withCookie(t, b, "/", s.Cookie).Header.Get("Location"),
		"signing out ends this session only")
}

// TestCookiesAreHostOnlyOverHTTPS: with an https BASE_URL the pre-session and session
// cookies are __Host- cookies (Secure, for the path /, no domain), which a sibling
// subdomain cannot set, and a cookie of the plain name, as such a site could plant,
// signs nobody in.
func TestCookiesAreHostOnlyOverHTTPS(t *testing.T) {
	t.Parallel()
	b := setup(t, map[string]string{"BASE_URL": "https://127.0.0.1"})
	hostOnly := func(resp *http.Response, name string) *http.Cookie {
		t.Helper()
		for _, c := range resp.Cookies() {
			if c.Name == "__Host-"+name && c.Value != "" {
				require.True(t, c.Secure, name)
				require.Equal(t, "/", c.Path, name)
				require.Empty(t, c.Domain, name)
				return c
			}
			require.NotEqual(t, name, c.Name, "no cookie of the plain name")
		}
		t.Fatalf("no __Host-%s cookie", name)
		return nil
	}

	login := withCookie(t, b, "/login", &http.Cookie{Name: "unrelated", Value: "x"})
	pre := hostOnly(login, "checkup_presession")
	token, _ := document(t, login).Find(`form[data-testid="local-sign-in"] input[name="_csrf"]`).Attr("value")
	form := formRequest(t, b.url+"/auth/local", url.Values{"_csrf": {token}, "name": {"Ida"}, "email": {email("ida", "example.com")}})
	form.AddCookie(pre)
	signIn := authtest.Anonymous(t, b.url).Send(t, form)
	require.Equal(t, http.StatusSeeOther, signIn.StatusCode, authtest.Body(t, signIn))
	session := hostOnly(signIn, auth.SessionCookie)

	require.Equal(t, http.StatusOK, withCookie(t, b, "/tasks", session).StatusCode)
	planted := withCookie(t, b, "/tasks", &http.Cookie{Name: auth.SessionCookie, Value: session.Value})
	require.Equal(t, http.StatusSeeOther, planted.StatusCode, "a cookie without the prefix signs nobody in")
	require.Equal(t, "/login?next=%2Ftasks", planted.Header.Get("Location"))

	// The notice after signing out is Secure too, though this request came over http,
	// as it does behind a proxy that ends TLS.
	tasks := withCookie(t, b, "/tasks", session)
	csrf, _ := document(t, tasks).Find(`input[name="_csrf"]`).First().Attr("value")
	out := formRequest(t, b.url+"/logout", url.Values{"_csrf": {csrf}})
	out.AddCookie(session)
	signOut := authtest.Anonymous(t, b.url).Send(t, out)
	require.Equal(t, http.StatusSeeOther, signOut.StatusCode, authtest.Body(t, signOut))
	var notice *http.Cookie
	for _, c := range signOut.Cookies() {
		if c.Name == "__Host-checkup_flash" {
			notice = c
		}
	}
	require.NotNil(t, notice, "signing out leaves a notice")
	require.True(t, notice.Secure, "the notice's cookie follows BASE_URL, not the request's scheme, and is host-only")
}
