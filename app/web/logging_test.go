package web_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// lockedBuffer is a log destination the server's goroutines can write at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines returns the JSON log lines written so far. It may run on a goroutine of
// require.Eventually, so a line that is not JSON is reported with Errorf.
func (b *lockedBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Errorf("a log line that is not JSON: %s: %v", sc.Text(), err)
			continue
		}
		out = append(out, line)
	}
	return out
}

// What a handler logs and the line that ends the request both carry the request id the
// answer names in X-Request-Id, so an operator can find one request's lines.
func TestARequestsLinesCarryItsRequestID(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	cfg, _, err := config.Load(func(string) string { return "" })
	require.NoError(t, err)
	var logs lockedBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ts := httptest.NewServer(web.New(web.Deps{Config: cfg, Pool: pool, Logger: logger}).Handler())
	t.Cleanup(ts.Close)
	alice := authtest.SignIn(t, pool, ts.URL, "logs-"+uuid.NewString()+"@example.com")

	resp := alice.PostForm(t, "/settings/tokens", url.Values{"name": {"nightly"}})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	id := resp.Header.Get("X-Request-Id")
	require.NotEmpty(t, id)

	// The request's line is written once the answer has gone out: wait for it.
	var created, ended []map[string]any
	require.Eventually(t, func() bool {
		created, ended = nil, nil
		for _, line := range logs.lines(t) {
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
		return len(ended) > 0
	}, 10*time.Second, 5*time.Millisecond, "the request's line")
	require.Len(t, created, 1, "the handler's line")
	require.Len(t, ended, 1, "the request's line, once")
	require.Equal(t, "/settings/tokens", ended[0]["route"])
	require.EqualValues(t, http.StatusCreated, ended[0]["status"])
}
