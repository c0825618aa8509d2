package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/app/ingest/ingesttest"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/report"
)

// TestSameReportFromEveryFormat uploads the sample as OpenAI JSONL, as OpenTelemetry
// GenAI spans and as a LangSmith run export to the real app binary, whose embedded
// worker diagnoses each with the offline analyzer, and compares the reports: the
// population, the ranked Actions (with their evidence) and the clusters and their
// sizes are the same, byte for byte. (The sample's arguments are compacted first: the
// trace formats carry arguments as JSON objects, so the same conversations have them
// compact.)
func TestSameReportFromEveryFormat(t *testing.T) {
	t.Parallel()
	pool, dbURL := dbtest.Isolated(t)
	p := apptest.Start(t, apptest.Build(t, t.TempDir()), []string{"DATABASE_URL=" + dbURL, "WORKER_POLL_MS=100", "LOG_LEVEL=warn"})
	p.WaitReady(t, time.Minute)
	sess := authtest.NewSession(t, pool, "formats@example.com")
	var convs []transcript.Conversation
	_, err := ingest.Parse(bytes.NewReader(readSample(t)), ingest.Limits{}, func(c transcript.Conversation) error {
		convs = append(convs, c)
		return nil
	})
	require.NoError(t, err)
	convs = ingesttest.CompactArgs(convs)
	files := []struct{ name, format string }{
		{"sample.jsonl", "openai-jsonl"}, {"spans.jsonl", "otlp-jsonl"}, {"runs.jsonl", "langsmith-jsonl"},
	}
	data := map[string][]byte{
		"sample.jsonl": ingesttest.OpenAIJSONL(t, convs),
		"spans.jsonl":  ingesttest.OTLP(t, convs, ingesttest.GenAIText, true, 40),
		"runs.jsonl":   ingesttest.LangSmith(t, convs),
	}
	type compared struct {
		Population report.Population
		Funnel     []report.FunnelStep
		Actions    []report.Action
		Clusters   []report.Cluster
	}
	var first []byte
	for _, f := range files {
		id := postUpload(t, "http://"+p.Addr, sess, f.name, data[f.name])
		r := waitForReport(t, "http://"+p.Addr, sess, id, 3*time.Minute)
		require.Equal(t, taskstate.Completed, r.Task.Status, f.name)
		require.Equal(t, f.format, r.Task.SourceFormat, f.name)
		require.Equal(t, 100, r.Population.Uploaded, f.name)
		require.NotEmpty(t, r.Actions, f.name)
		got, err := json.MarshalIndent(compared{r.Population, r.Funnel, r.Actions, r.Clusters}, "", " ")
		require.NoError(t, err)
		if first == nil {
			first = got
			continue
		}
		require.Equal(t, string(first), string(got), "%s gives the report of the JSONL upload", f.name)
	}
}

// postUpload sends data as the upload form does and returns the new task's id.
func postUpload(t *testing.T, baseURL string, sess authtest.Session, filename string, data []byte) string {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	require.NoError(t, mw.WriteField(auth.CSRFField, sess.CSRFToken))
	require.NoError(t, mw.WriteField("title", filename))
	part, err := mw.CreateFormFile("file", filename)
	require.NoError(t, err)
	_, err = part.Write(data)
	require.NoError(t, err)
	require.NoError(t, mw.Close())
	req, err := http.NewRequest(http.MethodPost, baseURL+"/tasks", &body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.AddCookie(sess.Cookie)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	m := taskLocation.FindStringSubmatch(resp.Header.Get("Location"))
	require.True(t, resp.StatusCode == http.StatusSeeOther && m != nil, "upload of %s: %d\n%.2000s", filename, resp.StatusCode, msg)
	return m[1]
}

// waitForReport polls the task's report.json until the task is terminal.
func waitForReport(t *testing.T, baseURL string, sess authtest.Session, id string, within time.Duration) report.Report {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/tasks/%s/report.json", baseURL, id), nil)
		require.NoError(t, err)
		req.AddCookie(sess.Cookie)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var r report.Report
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		require.NoError(t, err)
		if r.Task.Terminal {
			return r
		}
		require.True(t, time.Now().Before(deadline), "task %s still %s after %s", id, r.Task.Status, within)
		time.Sleep(200 * time.Millisecond) // polling a real process, as its page does
	}
}
