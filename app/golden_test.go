package main

import (
	"bytes"
	"flag"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// update rewrites the golden files instead of comparing with them. Run it when the
// report changes on purpose, and read the diff before committing it:
//
//	go test ./app -run TestSampleReportIsUnchanged -update
var update = flag.Bool("update", false, "rewrite app/testdata/golden/* from this run")

// goldenFiles are the downloads compared, as the task page links them.
var goldenFiles = []string{"report.json", "actions.csv", "findings.csv", "report.md"}

// TestSampleReportIsUnchanged uploads the sample export to the real binary over HTTP,
// lets the embedded worker run the offline diagnosis to its end, and compares the
// four downloads with app/testdata/golden: whatever is refactored beneath, a PM gets
// the same report. Timestamps, durations, the task's id and the worker's name differ
// from run to run and are replaced before comparing.
func TestSampleReportIsUnchanged(t *testing.T) {
	t.Parallel()
	pool, dbURL := dbtest.Isolated(t)
	p := apptest.Start(t, binary(t), []string{"DATABASE_URL=" + dbURL, "WORKER_POLL_MS=100"})
	p.WaitReady(t, time.Minute)
	c := authtest.SignIn(t, pool, "http://"+p.Addr, "golden@example.com")

	sample, err := os.ReadFile(filepath.Join("..", "testdata", "airline-100.jsonl"))
	require.NoError(t, err)
	task := uploadFile(t, c, "Airline support, 100 conversations", "airline-100.jsonl", sample)

	deadline := time.Now().Add(2 * time.Minute)
	for {
		body := authtest.Body(t, c.Get(t, task+"/progress"))
		if !strings.Contains(body, "hx-trigger") {
			break
		}
		require.True(t, time.Now().Before(deadline), "the diagnosis did not end within 2 minutes:\n%s", body)
		time.Sleep(50 * time.Millisecond)
	}

	id := strings.TrimPrefix(task, "/tasks/")
	for _, name := range goldenFiles {
		resp := c.Get(t, task+"/"+name)
		require.Equal(t, http.StatusOK, resp.StatusCode, name)
		got := normalise(authtest.Body(t, resp), id, "http://"+p.Addr)
		path := filepath.Join("testdata", "golden", name)
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err, "no golden file: run the test with -update once")
		require.Equal(t, string(want), got, "%s differs from %s (rerun with -update if the change is meant)", name, path)
	}
}

// uploadFile posts the upload form as the upload page does and returns the new task's
// path, from the redirect.
func uploadFile(t *testing.T, c *authtest.Client, title, filename string, content []byte) string {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	require.NoError(t, w.WriteField(auth.CSRFField, c.CSRFToken))
	require.NoError(t, w.WriteField("title", title))
	f, err := w.CreateFormFile("file", filename)
	require.NoError(t, err)
	_, err = io.Copy(f, bytes.NewReader(content))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	req, err := http.NewRequest(http.MethodPost, c.BaseURL+"/tasks", &body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", w.FormDataContentType())
	resp := c.Send(t, req)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, authtest.Body(t, resp))
	return resp.Header.Get("Location")
}

var (
	timestamp = regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d| UTC)?`)
	workerID  = regexp.MustCompile(`"lease_owner": "[^"]*"`)
	duration  = regexp.MustCompile(`"(duration_ms|elapsed_ms)": \d+`)
)

// normalise replaces what differs between two runs of the same upload: the task's id,
// the server's address (the base URL the links point at), times and the worker's name.
func normalise(s, taskID, baseURL string) string {
	s = strings.ReplaceAll(s, baseURL, "BASE-URL")
	s = strings.ReplaceAll(s, taskID, "TASK-ID")
	s = strings.ReplaceAll(s, taskID[:8], "TASKID8")
	s = timestamp.ReplaceAllString(s, "TIME")
	s = workerID.ReplaceAllString(s, `"lease_owner": "WORKER"`)
	return duration.ReplaceAllString(s, `"$1": 0`)
}
