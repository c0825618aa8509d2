package web_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/report/reporttest"
)

// Pages and downloads hold transcripts: no browser or proxy may keep a copy. Static
// files may be cached.
func TestOwnerPagesAndDownloadsAreNeverStored(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	id := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{}).ID.String()
	for _, path := range []string{"/tasks", "/tasks/new", "/tasks/" + id, "/tasks/" + id + "/progress", "/tasks/" + id + "/conversations/1",
		"/tasks/" + id + "/report.json", "/tasks/" + id + "/actions.csv", "/tasks/" + id + "/findings.csv", "/tasks/" + id + "/report.md",
		"/tasks/" + uuid.NewString(), "/"} {
		resp := b.alice.Get(t, path)
		require.Equal(t, "no-store", resp.Header.Get("Cache-Control"), "%s (%d)", path, resp.StatusCode)
	}
	resp := authtest.Anonymous(t, b.url).Get(t, "/login")
	require.Equal(t, "no-store", resp.Header.Get("Cache-Control"), "the sign-in page carries a token")
	resp = b.alice.Get(t, "/static/css/app.css")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NotEqual(t, "no-store", resp.Header.Get("Cache-Control"))
	require.Empty(t, resp.Header.Get("Strict-Transport-Security"), "no HSTS for an http:// BASE_URL")
}

// With an https:// BASE_URL every answer tells the browser to come back over HTTPS only.
func TestHSTSWhenBaseURLIsHTTPS(t *testing.T) {
	t.Parallel()
	cfg, _, err := config.Load(func(k string) string {
		return map[string]string{"BASE_URL": "https://checkup.example", "AUTH_DEV_LOGIN": "true"}[k]
	})
	require.NoError(t, err)
	srv := httptest.NewServer(web.New(web.Deps{Config: cfg, Pool: dbtest.Pool(t), Logger: slog.New(slog.DiscardHandler)}).Handler())
	t.Cleanup(srv.Close)
	for _, path := range []string{"/healthz", "/login", "/static/css/app.css", "/tasks"} {
		resp, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, "max-age=31536000", resp.Header.Get("Strict-Transport-Security"), path)
	}
}
