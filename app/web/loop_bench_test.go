package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// loopConversations is how many conversations the PM's-loop benchmark diagnoses.
const loopConversations = 10_000

// BenchmarkPMLoop10k diagnoses 10,000 unique labelled conversations offline (the
// sample, each user message given three words of a 16-word list, as the scale issue
// makes them), then times, one request at a time, the task page, the conversation list
// (its first page, a page 5,000 conversations deep, each filter, a rare and a common
// search) and marking an issue expected and taking the mark back. With -v it logs
// EXPLAIN (ANALYZE, BUFFERS) of the list's queries exactly as the server ran them for each.
//
//	go test ./app/web -run '^$' -bench PMLoop10k -benchtime 200x -v
func BenchmarkPMLoop10k(b *testing.B) {
	ctx := context.Background()
	_, dbURL := dbtest.Isolated(b)
	rec := &listRecorder{}
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		b.Fatal(err)
	}
	cfg.ConnConfig.Tracer = rec
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	appCfg, _, err := config.Load(func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(web.New(web.Deps{Config: appCfg, Pool: pool, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler())
	b.Cleanup(srv.Close)
	sess := authtest.NewSession(b, pool, "bench-loop@example.com")
	owner := sess.User.Owner()

	start := time.Now()
	id := workertest.CreateTask(b, store.New(pool), owner, store.NewTask{Title: "10k"}, uniqueConversations(b, loopConversations))
	uploaded := time.Since(start)
	workertest.StartWorker(b, pool, pipeline.New(pool, offline.New(offline.Options{}), workertest.Options(pipeline.Options{})),
		workers.Config{Poll: 50 * time.Millisecond}, slog.New(slog.DiscardHandler))
	workertest.WaitFor(b, 30*time.Minute, "the 10k diagnosis", func() bool {
		t, err := store.New(pool).Task(ctx, id, owner)
		return err == nil && t.FinishedAt != nil
	})
	b.Logf("stored %d conversations in %s, diagnosed in %s", loopConversations, uploaded.Round(time.Millisecond),
		(time.Since(start) - uploaded).Round(time.Millisecond))

	var biggest, biggestSize, deepSeq int
	var deepScore float32
	var category string
	if err := pool.QueryRow(ctx, `SELECT idx, cardinality(conversation_seqs) FROM task_cluster WHERE task_id = $1 AND NOT expected AND type = 'ACTION'
		AND idx IN (SELECT cluster_idx FROM task_action WHERE task_id = $1 AND rank IS NOT NULL)
		ORDER BY cardinality(conversation_seqs) DESC LIMIT 1`, id).Scan(&biggest, &biggestSize); err != nil {
		b.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT coalesce(failure_score, -1), seq FROM task_conversation WHERE task_id = $1 AND qc_status = 'kept'
		ORDER BY coalesce(failure_score, -1) DESC, seq OFFSET 5000 LIMIT 1`, id).Scan(&deepScore, &deepSeq); err != nil {
		b.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT category FROM task_finding WHERE task_id = $1 AND NOT expected
		GROUP BY category ORDER BY count(*) DESC LIMIT 1`, id).Scan(&category); err != nil {
		b.Fatal(err)
	}
	list := "/tasks/" + id.String() + "/conversations"
	get := func(path string) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.AddCookie(sess.Cookie)
		send(b, req)
	}
	for _, p := range []struct{ name, path string }{
		{"task-page", "/tasks/" + id.String()},
		{"list", list},
		{"list-5000-deep", list + fmt.Sprintf("?after=%s", store.ConversationCursor{Score: deepScore, Seq: int32(deepSeq)}.String(store.SortFailure))},
		{"list-issue", list + fmt.Sprintf("?cluster=%d", biggest)},
		{"list-driver", list + "?driver=0&sort=turns"},
		{"list-failed-by-turns", list + "?label=failed&sort=turns"},
		{"list-category-severity", list + "?category=" + category + "&min_severity=3&sort=severity"},
		{"list-risk", list + "?risk=refusal"},
		{"count-risk", list + "/count?risk=refusal"},
		{"count-category-severity", list + "/count?category=" + category + "&min_severity=3"},
		{"list-search-rare", list + "?q=compensation"},
		{"list-search-common", list + "?q=flight"},
		{"list-search-and-filters", list + "?q=refund&label=failed&sort=severity"},
	} {
		b.Run(p.name, func(b *testing.B) {
			rec.reset()
			get(p.path)
			if strings.HasPrefix(p.name, "list") {
				rec.explain(b, pool)
			}
			timeRequests(b, func() { get(p.path) })
		})
	}
	b.Run("mark-and-undo", func(b *testing.B) {
		form := url.Values{"_csrf": {sess.CSRFToken}, "reason": {"policy"}}.Encode()
		path := fmt.Sprintf("/tasks/%s/clusters/%d/expected", id, biggest)
		timeRequests(b, func() {
			for _, p := range []string{path, path + "/delete"} {
				req, _ := http.NewRequest(http.MethodPost, srv.URL+p, strings.NewReader(form))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.AddCookie(sess.Cookie)
				send(b, req, http.StatusSeeOther)
			}
		})
		b.ReportMetric(float64(biggestSize), "issue-conversations")
	})
}

// timeRequests runs do b.N times, one at a time, and reports its latency percentiles.
func timeRequests(b *testing.B, do func()) {
	latencies := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		t0 := time.Now()
		do()
		latencies = append(latencies, time.Since(t0))
	}
	elapsed := time.Since(start)
	b.StopTimer()
	reportLatencies(b, latencies, elapsed)
}

func send(b *testing.B, req *http.Request, want ...int) {
	client := http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	ok := http.StatusOK
	if len(want) > 0 {
		ok = want[0]
	}
	if resp.StatusCode != ok {
		b.Fatalf("%s %s: %d", req.Method, req.URL.Path, resp.StatusCode)
	}
}

// uniqueConversations is the labelled sample made into n conversations that differ:
// every user message of copy k gets three words of a 16-word list, chosen by k.
func uniqueConversations(b *testing.B, n int) []transcript.Conversation {
	words := strings.Fields("today please quickly again also thanks now here sure maybe soon still just really kindly though")
	sample := transcripttest.LabelledSample(b)
	out := make([]transcript.Conversation, 0, n)
	for k := 0; len(out) < n; k++ {
		for _, l := range sample {
			if len(out) == n {
				break
			}
			c := l.Conversation
			c.ID = fmt.Sprintf("%s-%d", c.ID, k)
			c.Label = transcript.LabelSucceeded
			if !l.Success {
				c.Label = transcript.LabelFailed
			}
			msgs := make([]transcript.Message, len(c.Messages))
			for i, m := range c.Messages {
				if m.Role == transcript.RoleUser {
					m.Content += " " + words[k%16] + " " + words[(k/16)%16] + " " + words[(k/256+i)%16]
				}
				msgs[i] = m
			}
			c.Messages = msgs
			out = append(out, c)
		}
	}
	return out
}

// listRecorder keeps the last queries of the conversation list the server ran
// (SearchConversationSeqs, ListTaskConversations), to explain them.
type listRecorder struct {
	mu      sync.Mutex
	queries []recordedQuery
}

type recordedQuery struct {
	sql  string
	args []any
}

func (r *listRecorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if strings.HasPrefix(d.SQL, "-- name: ListTaskConversations ") || strings.HasPrefix(d.SQL, "-- name: SearchConversationSeqs ") {
		r.mu.Lock()
		r.queries = append(r.queries, recordedQuery{d.SQL, d.Args})
		r.mu.Unlock()
	}
	return ctx
}

func (r *listRecorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (r *listRecorder) reset() {
	r.mu.Lock()
	r.queries = nil
	r.mu.Unlock()
}

// explain logs the plans of the recorded queries, planned for their parameters as the
// server plans them, in a transaction set as the store sets the list's.
func (r *listRecorder) explain(b *testing.B, pool *pgxpool.Pool) {
	r.mu.Lock()
	queries := r.queries
	r.mu.Unlock()
	if len(queries) == 0 {
		b.Fatal("the list query was not run")
	}
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for _, q := range queries {
		if strings.HasPrefix(q.sql, "-- name: SearchConversationSeqs ") {
			if _, err := tx.Exec(ctx, `SELECT set_config('enable_seqscan', 'off', true)`); err != nil {
				b.Fatal(err)
			}
		}
		args := append([]any{pgx.QueryExecModeDescribeExec}, withoutModes(q.args)...)
		rows, err := tx.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) "+q.sql, args...)
		if err != nil {
			b.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("EXPLAIN %s\n%s", strings.Fields(q.sql)[2], strings.Join(lines, "\n"))
	}
}

func withoutModes(args []any) []any {
	var out []any
	for _, a := range args {
		if _, ok := a.(pgx.QueryExecMode); !ok {
			out = append(out, a)
		}
	}
	return out
}
