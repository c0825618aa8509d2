package web_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// TestEveryAPIRouteIsDocumented compares the routes registered under /api/v1 with the
// operations of the document: each route is documented and each operation is served,
// with an operationId and a summary.
func TestEveryAPIRouteIsDocumented(t *testing.T) {
	t.Parallel()
	b := setupAPI(t, nil)
	var routes []string
	for _, r := range b.server.Routes() {
		if strings.HasPrefix(r.Path, "/api/v1/") && !strings.HasPrefix(r.Method, "echo_") && !strings.HasSuffix(r.Path, "*") {
			routes = append(routes, r.Method+" "+docPath(r.Path))
		}
	}
	slices.Sort(routes)
	require.Equal(t, b.contract.operations(), routes)
	for _, op := range routes {
		method, path, _ := strings.Cut(op, " ")
		o := b.contract.operation(t, method, path)
		require.NotEmpty(t, o["operationId"], op)
		require.NotEmpty(t, o["summary"], op)
	}
}

// TestAPIRunsADiagnosisEndToEnd uploads the sample through the API to the real app
// binary, polls the task until it is terminal, and downloads every file of the
// finished task: each answer matches the document, report.json with its Actions and
// clusters. The requests are counted in /metrics by their route template.
func TestAPIRunsADiagnosisEndToEnd(t *testing.T) {
	t.Parallel()
	pool, dbURL := dbtest.Isolated(t)
	addr := apptest.FreeAddr(t)
	p := apptest.Start(t, apptest.Build(t, t.TempDir()), []string{"DATABASE_URL=" + dbURL, "ADDR=" + addr,
		"BASE_URL=http://" + addr, "WORKER_POLL_MS=100", "LOG_LEVEL=warn", "API_RATE_BURST=10000"})
	p.WaitReady(t, time.Minute)
	base := "http://" + addr
	k := loadContract(t, base)
	sess := authtest.NewSession(t, pool, "api-e2e@example.com")
	api := authtest.NewAPIClient(base, authtest.NewToken(t, pool, sess.User, "e2e"))

	body, contentType := multipartBody(t, filePart("airline-100.jsonl", readSample(t)), titlePart("Weekly export"))
	resp := api.Do(t, http.MethodPost, "/api/v1/tasks", body, contentType)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	created := decode[apiTaskBody](t, k.check(t, http.MethodPost, "/api/v1/tasks", resp))
	require.Equal(t, "Weekly export", created.Title, "a title after the file counts")
	require.Equal(t, created.URL, resp.Header.Get("Location"))

	task := created
	deadline := time.Now().Add(3 * time.Minute)
	for !task.Terminal {
		require.True(t, time.Now().Before(deadline), "the task did not end within 3 minutes: %+v", task)
		time.Sleep(100 * time.Millisecond)
		resp := api.Do(t, http.MethodGet, strings.TrimPrefix(created.URL, base), nil, "")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		task = decode[apiTaskBody](t, k.check(t, http.MethodGet, "/api/v1/tasks/:id", resp))
	}
	require.Equal(t, "completed", task.Status)

	for name, url := range task.Downloads {
		resp := api.Do(t, http.MethodGet, strings.TrimPrefix(url, base), nil, "")
		require.Equal(t, http.StatusOK, resp.StatusCode, name)
		got := k.check(t, http.MethodGet, "/api/v1/tasks/:id/"+name, resp)
		if name == "report.json" {
			r := decode[struct {
				Actions  []map[string]any `json:"actions"`
				Clusters []map[string]any `json:"clusters"`
			}](t, got)
			require.NotEmpty(t, r.Actions, "the finished report has Actions, all checked against the document")
			require.NotEmpty(t, r.Clusters)
		}
	}
	require.Len(t, task.Downloads, 5)

	resp, err := http.Get(base + "/metrics")
	require.NoError(t, err)
	metrics := authtest.Body(t, resp)
	for _, series := range []string{
		`checkup_http_requests_total{method="POST",route="/api/v1/tasks",status="201"} 1`,
		`checkup_http_requests_total{method="GET",route="/api/v1/tasks/:id",status="200"}`,
		`checkup_http_requests_total{method="GET",route="/api/v1/tasks/:id/report.json",status="200"} 1`,
	} {
		require.Contains(t, metrics, series, "requests are counted by route template")
	}
	require.NotContains(t, metrics, created.ID, "never by the raw URL")
	t.Logf("answers checked against the document: %v", k.seen())
}
