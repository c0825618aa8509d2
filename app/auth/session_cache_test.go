package auth_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// instance is one Checkup server with a pool of its own on the shared database, its
// session cache on.
func instance(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	cfg, _, err := config.Load(func(string) string { return "" })
	require.NoError(t, err)
	site := web.New(web.Deps{Config: cfg, Pool: pool, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, site.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, site.Stop(context.Background())) })
	srv := httptest.NewServer(site.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// A sign-out on one instance ends the session on another that has it cached, as soon
// as the notification arrives: well before the cache would have let it go.
func TestSignOutEndsTheSessionOnEveryInstance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	poolA, dbURL := dbtest.Isolated(t)
	poolB, err := db.Open(ctx, dbURL)
	require.NoError(t, err)
	t.Cleanup(poolB.Close)
	a, b := instance(t, poolA), instance(t, poolB)
	status := func(base string, s authtest.Session) int {
		req, err := http.NewRequest(http.MethodGet, base+"/tasks", nil)
		require.NoError(t, err)
		req.AddCookie(s.Cookie)
		resp := authtest.Anonymous(t, base).Send(t, req)
		resp.Body.Close()
		return resp.StatusCode
	}

	// B serves a session from its cache: one deleted behind its back, without the
	// notification a sign-out sends, still signs in there.
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := authtest.NewSession(t, poolA, "cached-"+uuid.NewString()+"@example.com")
		require.Equal(t, http.StatusOK, status(b, s))
		_, err := poolA.Exec(ctx, `DELETE FROM user_session WHERE user_id = $1`, s.User.ID)
		require.NoError(t, err)
		if status(b, s) == http.StatusOK {
			break
		}
		require.True(t, time.Now().Before(deadline), "instance B never served a session from its cache")
	}

	// Signed out on A, the session is refused on B within moments.
	s := authtest.NewSession(t, poolA, "alice-"+uuid.NewString()+"@example.com")
	require.Equal(t, http.StatusOK, status(b, s), "cached on B")
	require.Equal(t, http.StatusOK, status(a, s))
	form := url.Values{auth.CSRFField: {s.CSRFToken}}
	req, err := http.NewRequest(http.MethodPost, a+"/logout", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(s.Cookie)
	resp := authtest.Anonymous(t, a).Send(t, req)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/login", resp.Header.Get("Location"))
	signedOut := time.Now()
	for status(b, s) == http.StatusOK {
		require.Less(t, time.Since(signedOut), 5*time.Second, "B still signs the session in")
	}
	require.Equal(t, http.StatusSeeOther, status(a, s))
}
