package web_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// What a handler logs and the line that ends the request both carry the request id the
// answer names in X-Request-Id, so an operator can find one request's lines.
func TestARequestsLinesCarryItsRequestID(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	cfg, _, err := config.Load(func(string) string { return "" })
	require.NoError(t, err)
	var logs apptest.SyncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ts := httptest.NewServer(web.New(web.Deps{Config: cfg, Pool: pool, Logger: logger}).Handler())
	t.Cleanup(ts.Close)
	alice := authtest.SignIn(t, pool, ts.URL, "logs-"+uuid.NewString()+"@example.com")

	resp := alice.PostForm(t, "/settings/tokens", url.Values{"name": {"nightly"}})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	id := resp.Header.Get("X-Request-Id")
	require.NotEmpty(t, id)

	// The request's line is written once the answer has gone out: wait for it.
	require.Eventually(t, func() bool {
		for line := range strings.Lines(logs.String()) {
			if strings.Contains(line, `"msg":"request"`) && strings.Contains(line, `"request_id":"`+id+`"`) {
				return true
			}
		}
		return false
	}, 10*time.Second, 5*time.Millisecond, "the request's line")
	var created, ended []map[string]any
	for _, line := range apptest.LogLines(t, logs.String()) {
		if line["request_id"] != id {
			continue
		}
		switch line["msg"] {
		case "api token created":
			created = append(created, line)
		case "request":
			ended = append(ended, line)
		}
	}
	require.Len(t, created, 1, "the handler's line")
	require.Len(t, ended, 1, "the request's line, once")
	require.Equal(t, "/settings/tokens", ended[0]["route"])
	require.EqualValues(t, http.StatusCreated, ended[0]["status"])
}
