package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
)

// ops is what the operations tests share: the binary, a database, a model that
// answers every call after a delay (so a task is long enough to be caught mid-way)
// and a signed-in session valid on every instance.
type ops struct {
	bin     string
	pool    *pgxpool.Pool
	dbURL   string
	model   *llmtest.Server
	session authtest.Session
}

func setupOps(t *testing.T, pool *pgxpool.Pool, dbURL string, callDelay time.Duration) *ops {
	t.Helper()
	return setupOpsWith(t, pool, dbURL, func(req llmtest.Request, _ int) llmtest.Reply {
		r := llmtest.Valid(req)
		r.Delay = callDelay
		return r
	})
}

// setupOpsWith is setupOps with a model that answers by script.
func setupOpsWith(t *testing.T, pool *pgxpool.Pool, dbURL string, script llmtest.Script) *ops {
	t.Helper()
	model := llmtest.New(t, llmtest.WithScript(script))
	return &ops{bin: binary(t), pool: pool, dbURL: dbURL, model: model,
		session: authtest.NewSession(t, pool, "ops-"+uuid.NewString()+"@example.com")}
}

// env is the instances' settings: a short stale threshold and heartbeat so a lost
// instance is noticed within seconds, and the LLM analyzer on the fake model.
func (o *ops) env(extra ...string) []string {
	return append([]string{
		"DATABASE_URL=" + o.dbURL,
		"OPENAI_API_KEY=test", "OPENAI_BASE_URL=" + o.model.URL(),
		"TASK_STALE_MS=2000", "TASK_HEARTBEAT_MS=250", "WORKER_POLL_MS=200",
		"SHUTDOWN_GRACE_MS=5000", "LOG_LEVEL=info",
	}, extra...)
}

// start starts an instance with env(extra...) and waits until it is ready.
func (o *ops) start(t *testing.T, extra ...string) *apptest.Process {
	t.Helper()
	return o.startWith(t, o.env(extra...))
}

// startWith starts an instance with exactly env and waits until it is ready.
func (o *ops) startWith(t *testing.T, env []string) *apptest.Process {
	t.Helper()
	p := apptest.Start(t, o.bin, env)
	p.WaitReady(t, 30*time.Second)
	return p
}

// sampleSlice is conversations [from, from+n) of the airline sample, as JSONL.
func sampleSlice(t *testing.T, from, n int) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "airline-100.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	var out bytes.Buffer
	lines := bufio.NewScanner(f)
	lines.Buffer(nil, 10<<20)
	for i := 0; i < from+n && lines.Scan(); i++ {
		if i >= from {
			out.Write(lines.Bytes())
			out.WriteByte('\n')
		}
	}
	require.NoError(t, lines.Err())
	return out.Bytes()
}

// upload posts file to POST /tasks on the instance at addr, as the upload form does,
// and returns the new task's id from the redirect.
func (o *ops) upload(t *testing.T, addr, filename string, file []byte) uuid.UUID {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	require.NoError(t, w.WriteField("title", filename))
	part, err := w.CreateFormFile("file", filename)
	require.NoError(t, err)
	_, err = part.Write(file)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/tasks", &body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set(auth.CSRFHeader, o.session.CSRFToken)
	req.AddCookie(o.session.Cookie)
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, "upload of %s", filename)
	id, err := uuid.Parse(strings.TrimPrefix(resp.Header.Get("Location"), "/tasks/"))
	require.NoError(t, err, "redirect to %q", resp.Header.Get("Location"))
	return id
}

// waitTask polls the task until cond holds, failing after timeout. A read that fails
// (the database restarting) is tried again.
func (o *ops) waitTask(t *testing.T, id uuid.UUID, timeout time.Duration, what string, cond func(dbsqlc.AnalysisTask) bool) dbsqlc.AnalysisTask {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		task, err := store.New(o.pool).Task(context.Background(), id, o.session.User.Owner())
		if err == nil && cond(task) {
			return task
		}
		require.True(t, time.Now().Before(deadline), "task %s: timed out waiting for %s; it is %s at %s %d/%d, attempt %d (%v)",
			id, what, task.Status, task.Stage, task.ProgressDone, task.ProgressTotal, task.Attempt, err)
		time.Sleep(20 * time.Millisecond)
	}
}

// midDiagnosis is true once the task's worker has stored a few diagnoses and has more
// to do: a kill now lands in the middle of the task.
func midDiagnosis(task dbsqlc.AnalysisTask) bool {
	return task.Status == "running" && task.Stage == "diagnosis" && task.ProgressDone >= 2 && task.ProgressDone < task.ProgressTotal-2
}

func finished(task dbsqlc.AnalysisTask) bool { return task.FinishedAt != nil }

// holder is the process whose worker holds the task's lease (its id names the pid).
func holder(t *testing.T, task dbsqlc.AnalysisTask, procs []*apptest.Process) *apptest.Process {
	t.Helper()
	require.NotNil(t, task.LeaseOwner)
	for _, p := range procs {
		if strings.Contains(*task.LeaseOwner, fmt.Sprintf("-%d-", p.Cmd.Process.Pid)) {
			return p
		}
	}
	t.Fatalf("no process holds lease %s", *task.LeaseOwner)
	return nil
}

// checkReport downloads the task's report.json from addr and checks it is intact:
// it parses, the task completed, every kept conversation is analysed, the findings
// are there and the Actions are ranked 1..N without gaps.
func (o *ops) checkReport(t *testing.T, addr string, id uuid.UUID) report.Report {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/tasks/"+id.String()+"/report.json", nil)
	require.NoError(t, err)
	req.AddCookie(o.session.Cookie)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var r report.Report
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
	require.EqualValues(t, "completed", r.Task.Status, "task %s: %s", id, r.Task.Error)
	require.Positive(t, r.Population.Kept)
	require.Equal(t, r.Population.Kept, r.Population.Analysed, "every kept conversation analysed")
	require.NotEmpty(t, r.Findings)
	require.NotEmpty(t, r.Actions)
	for i, a := range r.Actions {
		require.Equal(t, i+1, a.Rank, "Actions ranked 1..N")
	}
	return r
}

// diagnoseCalls counts the model's first diagnosis requests by conversation id (not
// repairs): a conversation asked about more than once was diagnosed again.
func (o *ops) diagnoseCalls() map[string]int {
	calls := map[string]int{}
	for _, r := range o.model.Requests() {
		if r.Schema() == "diagnosis" && !r.Repair() {
			calls[r.Conversation()]++
		}
	}
	return calls
}
