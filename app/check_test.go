package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/check"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// checkServer is the real binary serving with its embedded worker, and a token of a
// user on it; env adds to or overrides its settings.
type checkServer struct {
	bin, url, token string
	api             *authtest.APIClient
}

func startCheckServer(t *testing.T, env ...string) checkServer {
	t.Helper()
	pool, dbURL := dbtest.Isolated(t)
	bin := binary(t)
	addr := apptest.FreeAddr(t)
	p := apptest.Start(t, bin, append([]string{"DATABASE_URL=" + dbURL, "ADDR=" + addr, "BASE_URL=http://" + addr,
		"WORKER_POLL_MS=100", "LOG_LEVEL=warn"}, env...))
	p.WaitReady(t, time.Minute)
	sess := authtest.NewSession(t, pool, "ci@example.com")
	token := authtest.NewToken(t, pool, sess.User, "weekly CI")
	return checkServer{bin: bin, url: "http://" + addr, token: token, api: authtest.NewAPIClient("http://"+addr, token)}
}

// check runs `app check` as a CI job would, the token in CHECKUP_TOKEN, and returns
// its exit code and output. It polls once a second, within the API's default rate
// limit (TestCheckWaitsOutTheRateLimit polls faster than its server allows).
func (s checkServer) check(t *testing.T, args ...string) (int, string) {
	t.Helper()
	p := apptest.Start(t, s.bin, []string{"CHECKUP_TOKEN=" + s.token},
		append([]string{"check", "--url", s.url, "--poll", "1s", "--timeout", "3m"}, args...)...)
	code, err := p.Wait(4 * time.Minute)
	require.NoError(t, err)
	return code, p.Output()
}

// TestCheckExitCodes: a missing flag is 2, a wrong token and a refused file are 3
// with the server's reason, and a diagnosis that does not end in time is 4.
func TestCheckExitCodes(t *testing.T) {
	t.Parallel()
	s := startCheckServer(t)
	code, out := s.check(t)
	require.Equal(t, check.Usage, code, out)
	require.Contains(t, out, "--file is required")

	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte("{\"messages\": [}\nnot json\n"), 0o644))
	code, out = s.check(t, "--file", bad)
	require.Equal(t, check.Refused, code, out)
	require.Contains(t, out, "422")
	require.Contains(t, out, "line 1")

	wrong := checkServer{bin: s.bin, url: s.url, token: "ck_" + string(bytes.Repeat([]byte("x"), 43))}
	code, out = wrong.check(t, "--file", bad)
	require.Equal(t, check.Refused, code, out)
	require.Contains(t, out, "401")
	require.Contains(t, out, "/settings/tokens")

	code, out = s.check(t, "--file", filepath.Join("..", "testdata", "airline-100.jsonl"), "--timeout", "1ms")
	require.Equal(t, check.NoResults, code, out)
	require.Contains(t, out, "did not end within 1ms")
}
