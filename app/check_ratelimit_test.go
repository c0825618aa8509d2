package main

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/check"
)

// TestCheckWaitsOutTheRateLimit runs the check against a server that lets a token
// make one request every five seconds (API_RATE_BURST 1, API_RATE_PER_MINUTE 12) while
// it polls ten times a second: every poll after one that got through, the baseline's
// listing and the comparison right after the diagnosis, and an upload sent right after
// the previous check's last request are answered 429. The check waits each out, saying
// so, and passes. A wait that would pass --timeout stops the check as refused.
func TestCheckWaitsOutTheRateLimit(t *testing.T) {
	t.Parallel()
	s := startCheckServer(t, "API_RATE_BURST=1", "API_RATE_PER_MINUTE=12")
	sample := filepath.Join("..", "testdata", "airline-100.jsonl")
	waited := func(request string) *regexp.Regexp {
		return regexp.MustCompile(`(?m)^  rate-limited \(429 on ` + request + `\): waiting [1-5]s, then asking again$`)
	}

	code, out := s.check(t, "--file", sample, "--title", "Support agent, weekly", "--poll", "100ms")
	require.Equal(t, check.Passed, code, out)
	require.Regexp(t, waited(`GET /api/v1/tasks/[0-9a-f-]{36}`), out)
	require.Regexp(t, waited(`GET /api/v1/tasks\?limit=100`), out)
	require.Contains(t, out, "No earlier finished run")

	code, out = s.check(t, "--file", sample, "--title", "Support agent, weekly", "--poll", "100ms")
	require.Equal(t, check.Passed, code, out)
	t.Logf("the check that waited:\n%s", out)
	require.Regexp(t, waited(`POST /api/v1/tasks`), out)
	require.Regexp(t, waited(`GET /api/v1/tasks/[0-9a-f-]{36}/compare\.json\?baseline=[0-9a-f-]{36}`), out)
	require.Contains(t, out, "Uploaded 100 conversations")
	require.Contains(t, out, "No cluster got significantly worse")

	code, out = s.check(t, "--file", sample, "--title", "too late", "--timeout", "2s")
	require.Equal(t, check.Refused, code, out)
	require.Contains(t, out, "POST /api/v1/tasks: 429 Too Many Requests")
	require.Contains(t, out, "would pass --timeout")
	require.NotContains(t, out, "Uploaded")
}
