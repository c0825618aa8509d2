package auth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
)

// A page of another site whose name resolves to 127.0.0.1 (DNS rebinding) reaches the
// server with its own name in Host, and must get neither the sign-in form nor a
// session: the local sign-in answers only to BASE_URL's host and loopback.
func TestLocalSignInOnlyForItsOwnHost(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	port := b.url[strings.LastIndexByte(b.url, ':'):]

	// The sign-in page, asked for under another name.
	browser := authtest.Anonymous(t, b.url)
	resp := browser.Send(t, hostRequest(t, http.MethodGet, b.url+"/login", "rebind.attacker.example"+port, "", nil))
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	doc := document(t, resp)
	require.Contains(t, doc.Find(`[data-testid="sign-in-problem"]`).Text(), "Open "+b.url+"/login to sign in.")
	require.Zero(t, doc.Find(`[data-testid="local-sign-in"]`).Length(), "no form, no token")

	// The form's token and its cookie, taken from the real page, do not help a request
	// for another name, nor one sent from another site's page.
	token := localFormToken(t, browser)
	u, err := url.Parse(b.url)
	require.NoError(t, err)
	cookies := browser.HTTP.Jar.Cookies(u)
	require.NotEmpty(t, cookies)
	for _, c := range []struct{ name, host, origin string }{
		{"foreign Host", "rebind.attacker.example" + port, ""},
		{"foreign Host without its port", "rebind.attacker.example", ""},
		{"foreign Origin", "", "http://rebind.attacker.example" + port},
		{"opaque Origin", "", "null"},
	} {
		req := hostRequest(t, http.MethodPost, b.url+"/auth/local", c.host, c.origin,
			url.Values{"_csrf": {token}, "name": {"Eve"}, "email": {email("eve", "example.com")}})
		for _, ck := range cookies {
			req.AddCookie(ck) // a browser would send none under another name; the attacker's best case
		}
		resp := authtest.Anonymous(t, b.url).Send(t, req)
		require.Equal(t, http.StatusForbidden, resp.StatusCode, c.name)
		require.Contains(t, document(t, resp).Find(`[data-testid="sign-in-problem"]`).Text(), "so the local sign-in refused it", c.name)
		require.Nil(t, sessionCookie(resp), c.name)
	}
	require.False(t, signedIn(t, browser))

	// Its own address, under any loopback name, with or without an Origin.
	for _, c := range []struct{ host, origin string }{
		{"", ""}, {"", b.url}, {"localhost" + port, "http://localhost" + port}, {"[::1]" + port, ""}, {"127.0.0.2" + port, ""},
	} {
		browser := authtest.Anonymous(t, b.url)
		page := browser.Send(t, hostRequest(t, http.MethodGet, b.url+"/login", c.host, "", nil))
		require.Equal(t, http.StatusOK, page.StatusCode, c.host)
		token, ok := document(t, page).Find(`form[data-testid="local-sign-in"] input[name="_csrf"]`).Attr("value")
		require.True(t, ok, "%s: the local form is offered", c.host)
		resp := browser.Send(t, hostRequest(t, http.MethodPost, b.url+"/auth/local", c.host, c.origin,
			url.Values{"_csrf": {token}, "email": {email("ida", "example.com")}}))
		require.Equal(t, http.StatusSeeOther, resp.StatusCode, "%s %s", c.host, c.origin)
	}
}

// With AUTH_DEV_LOGIN on a named host, that name is its own.
func TestDevLoginAnswersToBaseURLsHost(t *testing.T) {
	t.Parallel()
	named := setup(t, map[string]string{"AUTH_DEV_LOGIN": "true", "BASE_URL": "http://checkup.test:8443"})
	port := named.url[strings.LastIndexByte(named.url, ':'):]
	for host, want := range map[string]int{
		"checkup.test:8443": http.StatusOK, "CHECKUP.test": http.StatusOK, "127.0.0.1" + port: http.StatusOK, "other.test:8443": http.StatusForbidden,
	} {
		resp := authtest.Anonymous(t, named.url).Send(t, hostRequest(t, http.MethodGet, named.url+"/login", host, "", nil))
		require.Equal(t, want, resp.StatusCode, host)
	}
}

// localFormToken reads the local form's _csrf from the sign-in page.
func localFormToken(t *testing.T, browser *authtest.Client) string {
	t.Helper()
	doc := document(t, browser.Get(t, "/login"))
	token, ok := doc.Find(`form[data-testid="local-sign-in"] input[name="_csrf"]`).Attr("value")
	require.True(t, ok, "the local form is offered")
	return token
}

// hostRequest is a request to target sent with Host host and Origin origin (when not
// empty), and form as its body (when not nil).
func hostRequest(t *testing.T, method, target, host, origin string, form url.Values) *http.Request {
	t.Helper()
	var req *http.Request
	if form != nil {
		req = formRequest(t, target, form)
	} else {
		var err error
		req, err = http.NewRequest(method, target, nil)
		require.NoError(t, err)
	}
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	return req
}
