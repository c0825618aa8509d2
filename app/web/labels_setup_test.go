package web_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

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
// token, and the API's document to check the answers against.
type labelsBundle struct {
	pool     *pgxpool.Pool
	url      string
	store    *store.Store
	contract *contract
	worker   *workers.Worker
	alice    apiUser
	bob      apiUser
}

func setupLabels(t *testing.T) labelsBundle {
	t.Helper()
	pool, _ := dbtest.Isolated(t)
	ts := httptest.NewUnstartedServer(nil)
	env := map[string]string{"API_RATE_BURST": "100000", "API_RATE_PER_MINUTE": "100000"}
	cfg, _, err := config.Load(func(k string) string {
		if k == "BASE_URL" {
			return "http://" + ts.Listener.Addr().String()
		}
		return env[k]
	})
	require.NoError(t, err)
	srv := web.New(web.Deps{Config: cfg, Pool: pool, Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))})
	ts.Config.Handler = srv.Handler()
	ts.Start()
	t.Cleanup(ts.Close)
	p := pipeline.New(pool, offline.New(offline.Options{}), workertest.Options(pipeline.Options{}))
	w := workertest.StartWorker(t, pool, p, workers.Config{Poll: 50 * time.Millisecond}, slog.New(slog.DiscardHandler))
	b := labelsBundle{pool: pool, url: ts.URL, store: store.New(pool), contract: loadContract(t, ts.URL), worker: w}
	bundle := apiBundle{pool: pool, url: ts.URL}
	b.alice, b.bob = bundle.user(t, "alice"), bundle.user(t, "bob")
	return b
}

// stopWorker stops the bundle's worker, so that what a test does next stays queued.
func (b labelsBundle) stopWorker(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, b.worker.Stop(ctx))
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
func (b labelsBundle) upload(t *testing.T, who apiUser, title, agent string, content []byte) uuid.UUID {
	t.Helper()
	parts := []part{titlePart(title), filePart("export.jsonl", content)}
	if agent != "" {
		parts = append(parts, part{name: "agent", content: []byte(agent)})
	}
	body, contentType := multipartBody(t, parts...)
	resp := who.api.Do(t, http.MethodPost, "/api/v1/tasks", body, contentType)
	got := b.contract.check(t, http.MethodPost, "/api/v1/tasks", resp)
	require.Equal(t, http.StatusCreated, resp.StatusCode, "%s", got)
	id := uuid.MustParse(decode[apiTaskBody](t, got).ID)
	b.waitFinished(t, who, id)
	return id
}

// waitFinished waits for who's task id to finish, and requires it completed.
func (b labelsBundle) waitFinished(t *testing.T, who apiUser, id uuid.UUID) {
	t.Helper()
	workertest.WaitFor(t, 3*time.Minute, "the diagnosis to finish", func() bool {
		task, err := b.store.Task(context.Background(), id, who.browser.Owner())
		require.NoError(t, err)
		return task.FinishedAt != nil
	})
	task, err := b.store.Task(context.Background(), id, who.browser.Owner())
	require.NoError(t, err)
	require.EqualValues(t, "completed", task.Status, task.Error)
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
func (b labelsBundle) postLabels(t *testing.T, who apiUser, id uuid.UUID, body string) (int, []byte) {
	t.Helper()
	resp := who.api.Do(t, http.MethodPost, "/api/v1/tasks/"+id.String()+"/labels", strings.NewReader(body), "application/json")
	return resp.StatusCode, b.contract.check(t, http.MethodPost, "/api/v1/tasks/:id/labels", resp)
}

// label gives labels through the API as who and requires them stored.
func (b labelsBundle) label(t *testing.T, who apiUser, id uuid.UUID, labels ...labelIn) labelsOut {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"labels": labels})
	require.NoError(t, err)
	status, body := b.postLabels(t, who, id, string(raw))
	require.Equal(t, http.StatusOK, status, "%s", body)
	return decode[labelsOut](t, body)
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
func (b labelsBundle) conversations(t *testing.T, who apiUser, id uuid.UUID, query string) (int, conversationsOut, []byte) {
	t.Helper()
	resp := who.api.Do(t, http.MethodGet, "/api/v1/tasks/"+id.String()+"/conversations?"+query, nil, "")
	body := b.contract.check(t, http.MethodGet, "/api/v1/tasks/:id/conversations", resp)
	var out conversationsOut
	if resp.StatusCode == http.StatusOK {
		out = decode[conversationsOut](t, body)
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
func (b labelsBundle) learningTasks(t *testing.T, id uuid.UUID) map[string]int {
	t.Helper()
	rows, err := b.pool.Query(context.Background(), `
		SELECT l.status, count(*) FROM analysis_task l JOIN analysis_task t ON t.agent_id = l.agent_id
		WHERE t.id = $1 AND l.kind = 'learning' GROUP BY l.status`, id)
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var status string
		var n int
		require.NoError(t, rows.Scan(&status, &n))
		out[status] = n
	}
	require.NoError(t, rows.Err())
	return out
}
