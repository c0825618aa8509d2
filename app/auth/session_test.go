package auth_test

import (
	"context"
	"net/http"
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
