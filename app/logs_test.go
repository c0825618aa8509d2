package main

import (
	"net/http"
	"net/url"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// TestLogsNeverShowSecretsAndTagRequests runs an instance at LOG_LEVEL=debug with an
// API key, an OAuth client secret and a database password, takes a task through the
// LLM pipeline and a few pages, and reads everything it printed: no secret appears,
// the configuration is summarised once with the secrets masked, and every line about
// a request carries its request id.
func TestLogsNeverShowSecretsAndTagRequests(t *testing.T) {
	t.Parallel()
	pool, dbURL := dbtest.Isolated(t)
	u, err := url.Parse(dbURL)
	require.NoError(t, err)
	dbPassword, ok := u.User.Password()
	require.True(t, ok && dbPassword != "", "the test database URL carries a password")
	apiKey := "sk-secret-" + uuid.NewString()
	clientSecret := "gh-secret-" + uuid.NewString()

	o := setupOps(t, pool, dbURL, 0)
	env := o.env("OPENAI_API_KEY="+apiKey, "LOG_LEVEL=debug", "LOG_FORMAT=json",
		"GITHUB_CLIENT_ID=checkup-test", "GITHUB_CLIENT_SECRET="+clientSecret, "AUTH_DEV_LOGIN=true")
	p := o.startWith(t, env)
	id := o.upload(t, p.Addr, "secrets.jsonl", sampleSlice(t, 0, 6))
	o.waitTask(t, id, 30*time.Second, "the end", finished)
	o.checkReport(t, p.Addr, id)
	resp, err := http.Get("http://" + p.Addr + "/tasks/" + uuid.NewString())
	require.NoError(t, err)
	resp.Body.Close()
	require.NoError(t, p.Signal(syscall.SIGTERM))
	code, err := p.Wait(20 * time.Second)
	require.NoError(t, err)
	require.Equal(t, 0, code)

	out := p.Output()
	for _, secret := range []string{apiKey, clientSecret, dbPassword} {
		require.NotContains(t, out, secret)
	}
	var summaries, requests int
	for _, line := range apptest.LogLines(t, out) {
		switch {
		case line["msg"] == "configuration":
			summaries++
			require.Equal(t, "********", line["openai_api_key"])
			require.Equal(t, "********", line["github_client_secret"])
			require.Equal(t, "checkup-test", line["github_client_id"])
			require.NotContains(t, line["database_url"], ":"+dbPassword)
			require.Equal(t, "2000", line["task_stale_ms"])
		case line["route"] != nil:
			requests++
			require.NotEmpty(t, line["request_id"], "a request's line without its request id: %v", line)
		}
	}
	require.Equal(t, 1, summaries, "the configuration is summarised once")
	require.GreaterOrEqual(t, requests, 4, "readiness polls, the upload, the report and the 404 are logged at debug")
}

// TestIdleWorkerIsSilent starts an instance that polls every 20 ms and finds nothing to
// do: after its start-up lines it prints nothing at all.
func TestIdleWorkerIsSilent(t *testing.T) {
	t.Parallel()
	pool, dbURL := dbtest.Isolated(t)
	o := setupOps(t, pool, dbURL, 0)
	p := o.startWith(t, o.env("WORKER_POLL_MS=20", "LOG_FORMAT=json"))
	p.WaitOutput(t, 5*time.Second, "Checkup is ready")
	started := p.Output()
	// A window of about fifty polls: there is no state to wait for, only time to pass.
	time.Sleep(time.Second)
	require.Equal(t, started, p.Output(), "an idle worker logs nothing")
	var msgs []string
	for _, line := range apptest.LogLines(t, started) {
		msgs = append(msgs, line["msg"].(string))
	}
	require.Equal(t, []string{"configuration", "Checkup is ready"}, msgs)
}
