package web_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// labelsBundle is a real server and an offline worker on a database of the test's own
// (the worker claims every task in it), with Alice and Bob signed in, each with an API
// token, and in a test (not a benchmark) the API's document to check the answers
// against.
type labelsBundle struct {
	pool     *pgxpool.Pool
	url      string
	store    *store.Store
	contract *contract
	worker   *workers.Worker
	alice    apiUser
	bob      apiUser
}

func setupLabels(tb testing.TB) labelsBundle {
	tb.Helper()
	pool, _ := dbtest.Isolated(tb)
	ts := httptest.NewUnstartedServer(nil)
	env := map[string]string{"API_RATE_BURST": "100000", "API_RATE_PER_MINUTE": "100000"}
	cfg, _, err := config.Load(func(k string) string {
		if k == "BASE_URL" {
			return "http://" + ts.Listener.Addr().String()
		}
		return env[k]
	})
	require.NoError(tb, err)
	srv := web.New(web.Deps{Config: cfg, Pool: pool, Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))})
	ts.Config.Handler = srv.Handler()
	ts.Start()
	tb.Cleanup(ts.Close)
	p := pipeline.New(pool, offline.New(offline.Options{}), workertest.Options(pipeline.Options{}))
	w := workertest.StartWorker(tb, pool, p, workers.Config{Poll: 50 * time.Millisecond}, slog.New(slog.DiscardHandler))
	b := labelsBundle{pool: pool, url: ts.URL, store: store.New(pool), worker: w}
	if t, ok := tb.(*testing.T); ok {
		b.contract = loadContract(t, ts.URL)
	}
	b.alice, b.bob = b.user(tb, "alice"), b.user(tb, "bob")
	return b
}

// user signs name in with a token of their own.
func (b labelsBundle) user(tb testing.TB, name string) apiUser {
	tb.Helper()
	browser := authtest.SignIn(tb, b.pool, b.url, name+"-"+uuid.NewString()+"@example.com")
	return apiUser{browser: browser, api: authtest.NewAPIClient(b.url, authtest.NewToken(tb, b.pool, browser.User, name+"'s script"))}
}

// checked is resp's body, checked against the document when there is one (route is
// the echo route resp answers, such as /api/v1/tasks/:id/labels).
func (b labelsBundle) checked(tb testing.TB, method, route string, resp *http.Response) []byte {
	tb.Helper()
	if t, ok := tb.(*testing.T); ok && b.contract != nil {
		return b.contract.check(t, method, route, resp)
	}
	return []byte(authtest.Body(tb, resp))
}

// stopWorker stops the bundle's worker, so that what a test does next stays queued.
func (b labelsBundle) stopWorker(tb testing.TB) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(tb, b.worker.Stop(ctx))
}

// unlabelledAirline is testdata/airline-100.jsonl as an export without outcomes: each
// line's metadata removed, so the upload carries no label.
func unlabelledAirline(t testing.TB) []byte {
	t.Helper()
	f, err := os.Open(transcripttest.Path(transcripttest.Airline))
	require.NoError(t, err)
	defer f.Close()
	var out bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var line map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line))
		delete(line, "metadata")
		b, err := json.Marshal(line)
		require.NoError(t, err)
		out.Write(append(b, '\n'))
	}
	require.NoError(t, sc.Err())
	return out.Bytes()
}

// airlineOutcomes is the airline set's own outcome of each conversation, by its id:
// "failed" or "succeeded".
func airlineOutcomes(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range transcripttest.LabelledSample(t) {
		out[l.Conversation.ID] = "succeeded"
		if !l.Success {
			out[l.Conversation.ID] = "failed"
		}
	}
	return out
}

// upload posts content through the API as who, under title and agent ("" to let
// Checkup choose), and waits until the worker has finished the diagnosis.
func (b labelsBundle) upload(tb testing.TB, who apiUser, title, agent string, content []byte) uuid.UUID {
	tb.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	require.NoError(tb, w.WriteField("title", title))
	if agent != "" {
		require.NoError(tb, w.WriteField("agent", agent))
	}
	f, err := w.CreateFormFile("file", "export.jsonl")
	require.NoError(tb, err)
	_, err = f.Write(content)
	require.NoError(tb, err)
	require.NoError(tb, w.Close())
	resp := who.api.Do(tb, http.MethodPost, "/api/v1/tasks", &body, w.FormDataContentType())
	got := b.checked(tb, http.MethodPost, "/api/v1/tasks", resp)
	require.Equal(tb, http.StatusCreated, resp.StatusCode, "%s", got)
	var created struct {
		ID uuid.UUID `json:"id"`
	}
	require.NoError(tb, json.Unmarshal(got, &created))
	b.waitFinished(tb, who, created.ID)
	return created.ID
}

// waitFinished waits for who's task id to finish, and requires it completed.
func (b labelsBundle) waitFinished(tb testing.TB, who apiUser, id uuid.UUID) {
	tb.Helper()
	workertest.WaitFor(tb, 3*time.Minute, "the diagnosis to finish", func() bool {
		task, err := b.store.Task(context.Background(), id, who.browser.Owner())
		require.NoError(tb, err)
		return task.FinishedAt != nil
	})
	task, err := b.store.Task(context.Background(), id, who.browser.Owner())
	require.NoError(tb, err)
	require.EqualValues(tb, "completed", task.Status, task.Error)
}

// labelIn is one label of a request to POST /api/v1/tasks/{id}/labels; a nil Outcome
// is null.
type labelIn struct {
	ConversationID string  `json:"conversation_id"`
	Outcome        *string `json:"outcome"`
}

func outcome(s string) *string { return &s }

// labelsOut is the answer of POST /api/v1/tasks/{id}/labels.
type labelsOut struct {
	Labels []struct {
		ConversationID string     `json:"conversation_id"`
		Seq            int        `json:"seq"`
		Label          *string    `json:"label"`
		LabelSource    *string    `json:"label_source"`
		ReviewedLabel  *string    `json:"reviewed_label"`
		ReviewedAt     *time.Time `json:"reviewed_at"`
	} `json:"labels"`
	Agent *struct {
		Name          string `json:"name"`
		Failed        int    `json:"failed"`
		Succeeded     int    `json:"succeeded"`
		MinPerOutcome int    `json:"min_per_outcome"`
		HasDetector   bool   `json:"has_detector"`
		Learning      bool   `json:"learning"`
	} `json:"agent"`
}

// postLabels sends body (JSON) to POST /api/v1/tasks/{id}/labels as who, checks the
// answer against the document, and returns its status and body.
func (b labelsBundle) postLabels(tb testing.TB, who apiUser, id uuid.UUID, body string) (int, []byte) {
	tb.Helper()
	resp := who.api.Do(tb, http.MethodPost, "/api/v1/tasks/"+id.String()+"/labels", strings.NewReader(body), "application/json")
	return resp.StatusCode, b.checked(tb, http.MethodPost, "/api/v1/tasks/:id/labels", resp)
}

// label gives labels through the API as who and requires them stored.
func (b labelsBundle) label(tb testing.TB, who apiUser, id uuid.UUID, labels ...labelIn) labelsOut {
	tb.Helper()
	raw, err := json.Marshal(map[string]any{"labels": labels})
	require.NoError(tb, err)
	status, body := b.postLabels(tb, who, id, string(raw))
	require.Equal(tb, http.StatusOK, status, "%s", body)
	var out labelsOut
	require.NoError(tb, json.Unmarshal(body, &out))
	return out
}

// conversationsOut is the answer of GET /api/v1/tasks/{id}/conversations.
type conversationsOut struct {
	Conversations []struct {
		ID           string   `json:"id"`
		Seq          int      `json:"seq"`
		FailureScore *float64 `json:"failure_score"`
		Label        *string  `json:"label"`
		LabelSource  *string  `json:"label_source"`
	} `json:"conversations"`
	Next *string `json:"next"`
}

// conversations lists who's task id through the API with query ("sort=to_label&limit=5").
func (b labelsBundle) conversations(tb testing.TB, who apiUser, id uuid.UUID, query string) (int, conversationsOut, []byte) {
	tb.Helper()
	resp := who.api.Do(tb, http.MethodGet, "/api/v1/tasks/"+id.String()+"/conversations?"+query, nil, "")
	body := b.checked(tb, http.MethodGet, "/api/v1/tasks/:id/conversations", resp)
	var out conversationsOut
	if resp.StatusCode == http.StatusOK {
		require.NoError(tb, json.Unmarshal(body, &out))
	}
	return resp.StatusCode, out, body
}

// reviewed counts the conversations of task id its owner has ever labelled (or taken a
// label back from): what a refused change must leave at its count.
func (b labelsBundle) reviewed(t *testing.T, id uuid.UUID) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM task_conversation WHERE task_id = $1 AND reviewed_at IS NOT NULL`, id).Scan(&n))
	return n
}

// learningTasks counts the learning tasks of the agent of task id, by status.
func (b labelsBundle) learningTasks(tb testing.TB, id uuid.UUID) map[string]int {
	tb.Helper()
	rows, err := b.pool.Query(context.Background(), `
		SELECT l.status, count(*) FROM analysis_task l JOIN analysis_task t ON t.agent_id = l.agent_id
		WHERE t.id = $1 AND l.kind = 'learning' GROUP BY l.status`, id)
	require.NoError(tb, err)
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var status string
		var n int
		require.NoError(tb, rows.Scan(&status, &n))
		out[status] = n
	}
	require.NoError(tb, rows.Err())
	return out
}
