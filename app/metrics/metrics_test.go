package metrics_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/app/metrics"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/llm"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// bundle is a web server and an embedded worker running the LLM pipeline against a
// fake model, sharing one Metrics, on a database of the test's own.
type bundle struct {
	pool    *pgxpool.Pool
	metrics *metrics.Metrics
	model   *llmtest.Server
	url     string
	client  *authtest.Client
}

func setup(t *testing.T) *bundle {
	t.Helper()
	pool, _ := dbtest.Isolated(t)
	logger := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg, _, err := config.Load(func(string) string { return "" })
	require.NoError(t, err)
	m := metrics.New(pool, metrics.Config{Stale: cfg.TaskStale, Logger: logger})

	model := llmtest.New(t)
	a, err := llm.New(llm.Config{BaseURL: model.URL(), Model: "test-model", Observer: m.ObserveLLMCall})
	require.NoError(t, err)
	workertest.StartWorker(t, pool, pipeline.New(pool, a, workertest.Options(pipeline.Options{})),
		workers.Config{Poll: 50 * time.Millisecond, Metrics: m.Worker}, logger)

	srv := httptest.NewServer(web.New(web.Deps{Config: cfg, Pool: pool, Logger: logger, Metrics: m}).Handler())
	t.Cleanup(srv.Close)
	return &bundle{pool: pool, metrics: m, model: model, url: srv.URL, client: authtest.SignIn(t, pool, srv.URL, "ops@example.com")}
}

// upload creates a task from the first n conversations of the airline sample.
func (b *bundle) upload(t *testing.T, n int) uuid.UUID {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "airline-100.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	var first bytes.Buffer
	lines := bufio.NewScanner(f)
	lines.Buffer(nil, 10<<20)
	for i := 0; i < n && lines.Scan(); i++ {
		first.Write(lines.Bytes())
		first.WriteByte('\n')
	}
	var convs []transcript.Conversation
	_, err = ingest.Parse(&first, ingest.Limits{}, func(c transcript.Conversation) error {
		convs = append(convs, c)
		return nil
	})
	require.NoError(t, err)
	return workertest.CreateTask(t, store.New(b.pool), b.client.Owner(), store.NewTask{Title: "metrics"}, convs)
}

func (b *bundle) waitFinished(t *testing.T, id uuid.UUID) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		task, err := store.New(b.pool).Task(context.Background(), id, b.client.Owner())
		require.NoError(t, err)
		if task.FinishedAt != nil {
			return string(task.Status)
		}
		require.True(t, time.Now().Before(deadline), "the task did not finish; it is %s at %s", task.Status, task.Stage)
		time.Sleep(20 * time.Millisecond)
	}
}

// scrape reads /metrics over HTTP, without a session, as Prometheus does.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	require.NoError(t, err, "%s", body)
	return families
}

// sample finds the metric of family name whose labels include want, failing the test
// when there is none.
func sample(t *testing.T, families map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	t.Helper()
	_, ok := families[name]
	require.True(t, ok, "no metric %s", name)
	m := find(families, name, want)
	require.NotNil(t, m, "no %s with labels %v", name, want)
	return m
}

// find returns the metric of family name whose labels include want, or nil.
func find(families map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	for _, m := range families[name].GetMetric() {
		match := true
		for k, v := range want {
			found := false
			for _, l := range m.GetLabel() {
				found = found || (l.GetName() == k && l.GetValue() == v)
			}
			match = match && found
		}
		if match {
			return m
		}
	}
	return nil
}

func TestMetricsAfterATask(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.upload(t, 8)
	status := b.waitFinished(t, id)
	require.Contains(t, []string{"completed", "partial"}, status)
	resp := b.client.Get(t, "/tasks/"+id.String())
	require.Equal(t, http.StatusOK, resp.StatusCode)
	resp.Body.Close()

	// A request is counted once its response is written, so a scrape right after it
	// may come first: scrape until the page's request shows.
	f := scrapeUntil(t, b.url, func(f map[string]*dto.MetricFamily) bool {
		return find(f, "checkup_http_requests_total", map[string]string{"route": "/tasks/:id"}) != nil
	})

	require.EqualValues(t, 1, sample(t, f, "checkup_tasks", map[string]string{"status": status}).GetGauge().GetValue())
	require.Zero(t, sample(t, f, "checkup_tasks", map[string]string{"status": "running"}).GetGauge().GetValue())
	require.Zero(t, sample(t, f, "checkup_queue_depth", map[string]string{"state": "pending"}).GetGauge().GetValue())
	require.Zero(t, sample(t, f, "checkup_queue_depth", map[string]string{"state": "stale_running"}).GetGauge().GetValue())

	require.EqualValues(t, 1, sample(t, f, "checkup_worker_claims_total", nil).GetCounter().GetValue())
	require.Zero(t, sample(t, f, "checkup_worker_takeovers_total", nil).GetCounter().GetValue())
	require.EqualValues(t, 1, sample(t, f, "checkup_worker_wake_latency_seconds", nil).GetHistogram().GetSampleCount())
	require.EqualValues(t, 1, sample(t, f, "checkup_worker_task_duration_seconds", map[string]string{"status": status}).GetHistogram().GetSampleCount())

	stats := b.model.Stats()
	diagnose := sample(t, f, "checkup_llm_calls_total", map[string]string{"stage": llm.StageDiagnose}).GetCounter().GetValue()
	action := sample(t, f, "checkup_llm_calls_total", map[string]string{"stage": llm.StageAction}).GetCounter().GetValue()
	require.Positive(t, diagnose)
	require.Positive(t, action)
	require.EqualValues(t, stats.Requests, diagnose+action, "every request the model got is counted")
	require.EqualValues(t, diagnose, sample(t, f, "checkup_llm_call_duration_seconds", map[string]string{"stage": llm.StageDiagnose}).GetHistogram().GetSampleCount())
	require.Zero(t, sample(t, f, "checkup_llm_errors_total", map[string]string{"stage": llm.StageDiagnose}).GetCounter().GetValue())
	var prompt float64
	for _, stage := range []string{llm.StageDiagnose, llm.StageAction} {
		prompt += sample(t, f, "checkup_llm_tokens_total", map[string]string{"stage": stage, "kind": "prompt"}).GetCounter().GetValue()
	}
	require.EqualValues(t, stats.PromptTokens, prompt, "the tokens the model reported")

	page := sample(t, f, "checkup_http_requests_total", map[string]string{"method": "GET", "route": "/tasks/:id", "status": "200"})
	require.EqualValues(t, 1, page.GetCounter().GetValue(), "counted by the route's template, not its URL")
	for name := range f {
		require.NotContains(t, name, id.String())
	}
	require.Positive(t, sample(t, f, "checkup_http_request_duration_seconds", map[string]string{"route": "/tasks/:id"}).GetHistogram().GetSampleCount())
	require.Contains(t, f, "checkup_retention_deleted_tasks_total")
	require.Contains(t, f, "go_goroutines")
	require.Contains(t, f, "process_resident_memory_bytes")

	again := scrapeUntil(t, b.url, func(f map[string]*dto.MetricFamily) bool {
		return find(f, "checkup_http_requests_total", map[string]string{"route": "/metrics", "status": "200"}) != nil
	})
	require.Positive(t, sample(t, again, "checkup_http_requests_total", map[string]string{"route": "/metrics", "status": "200"}).GetCounter().GetValue(),
		"the scrapes are counted under their route")
}

// scrapeUntil scrapes until ready holds, failing the test after a deadline.
func scrapeUntil(t *testing.T, url string, ready func(map[string]*dto.MetricFamily) bool) map[string]*dto.MetricFamily {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		f := scrape(t, url)
		if ready(f) {
			return f
		}
		require.True(t, time.Now().Before(deadline), "the metrics never showed what was waited for")
		time.Sleep(20 * time.Millisecond)
	}
}

func TestScrapeWithTheDatabaseDownServesTheRestQuickly(t *testing.T) {
	t.Parallel()
	// A pool on a port nobody listens on: every query fails at once.
	l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	pool, err := pgxpool.New(context.Background(), "postgres://u:p@"+addr+"/x?sslmode=disable&connect_timeout=5")
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	m := metrics.New(pool, metrics.Config{ScrapeTimeout: 500 * time.Millisecond})
	srv := httptest.NewServer(m.Handler())
	t.Cleanup(srv.Close)

	start := time.Now()
	f := scrape(t, srv.URL)
	require.Less(t, time.Since(start), 3*time.Second)
	require.NotContains(t, f, "checkup_tasks", "no counts without the database")
	require.Contains(t, f, "checkup_worker_claims_total")
	require.Contains(t, f, "go_goroutines")
}

func TestServeForTheStandaloneWorker(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.Isolated(t)
	m := metrics.New(pool, metrics.Config{})
	addr := apptest.FreeAddr(t)
	stop, err := m.Serve(addr)
	require.NoError(t, err)
	m.Worker.Claims.Inc()

	f := scrape(t, "http://"+addr)
	require.EqualValues(t, 1, sample(t, f, "checkup_worker_claims_total", nil).GetCounter().GetValue())
	require.Zero(t, sample(t, f, "checkup_tasks", map[string]string{"status": "pending"}).GetGauge().GetValue())
	resp, err := http.Get("http://" + addr + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	_, err = m.Serve(addr)
	require.ErrorContains(t, err, "METRICS_ADDR", "the address is taken")
	stop()
	again, err := m.Serve(addr)
	require.NoError(t, err, "stop released the address")
	again()
}
