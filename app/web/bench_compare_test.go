package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// seedWeeklyRuns gives the benchmark's owner 10,000 finished diagnoses of one title
// (the worst case for the list's trends and the compare picker: every task has the
// same title), each with 15 issue clusters and an Action for the first, and returns
// the ids of the newest two.
func seedWeeklyRuns(b *testing.B, s benchServer) (newest, previous uuid.UUID) {
	b.Helper()
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO analysis_task (owner_user_id, title, status, stage, progress_done, progress_total, finished_at,
			created_at, conversation_count, source_filename)
		 SELECT $1, 'Support bot', 'completed', 'finishing', 1, 1, now(), now() - i * interval '1 hour', 200, 'export.jsonl'
		 FROM generate_series(1, 10000) i`,
		`INSERT INTO task_cluster (task_id, owner_user_id, idx, type, category, title, conversation_seqs, finding_count,
			prevalence, severity, confidence, priority_score)
		 SELECT t.id, t.owner_user_id, c, CASE WHEN c < 3 THEN 'RISK' ELSE 'ACTION' END, 'category_' || c,
			'Issue number ' || c || ' of the agent', ARRAY(SELECT generate_series(1, 5 + c)), 5 + c,
			(5 + c + abs(hashtext(t.id::text)) % 7) / 200.0, 3, 0.8, 90 - c
		 FROM analysis_task t, generate_series(0, 14) c WHERE t.owner_user_id = $1`,
		`INSERT INTO task_action (task_id, owner_user_id, candidate_index, cluster_idx, status, rank, action)
		 SELECT id, owner_user_id, 0, 0, 'done', 1, '{"title": "Fix it", "problem": "", "recommendation": [], "expectedImpact": "", "fixLocation": "prompt"}'
		 FROM analysis_task WHERE owner_user_id = $1`,
		`ANALYZE analysis_task`, `ANALYZE task_cluster`, `ANALYZE task_action`,
	} {
		var args []any
		if strings.Contains(q, "$1") {
			args = append(args, s.owner)
		}
		if _, err := s.pool.Exec(ctx, q, args...); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.pool.QueryRow(ctx, `SELECT (array_agg(id ORDER BY created_at DESC))[1], (array_agg(id ORDER BY created_at DESC))[2]
		FROM analysis_task WHERE owner_user_id = $1`, s.owner).Scan(&newest, &previous); err != nil {
		b.Fatal(err)
	}
	return newest, previous
}

// BenchmarkTaskListTrends10k is the first page of the task list when the owner has
// 10,000 runs of one title: each row's top issue and its trend over 8 runs.
func BenchmarkTaskListTrends10k(b *testing.B) {
	s := newBenchServer(b)
	seedWeeklyRuns(b, s)
	s.get(b, "/tasks")
	timed(b, func() { s.get(b, "/tasks") })
}

// BenchmarkComparePage10k is the compare page and compare.json of the newest two of
// 10,000 runs of one title, and the task page with its baseline picker.
func BenchmarkComparePage10k(b *testing.B) {
	s := newBenchServer(b)
	newest, previous := seedWeeklyRuns(b, s)
	paths := []string{
		"/tasks/" + newest.String() + "/compare?baseline=" + previous.String(),
		"/tasks/" + newest.String() + "/compare.json?baseline=" + previous.String(),
		"/tasks/" + newest.String(),
	}
	for _, p := range paths {
		s.get(b, p)
	}
	i := 0
	timed(b, func() { s.get(b, paths[i%len(paths)]); i++ })
}

// timed runs one request b.N times, one at a time, and reports the rate and latencies.
func timed(b *testing.B, request func()) {
	b.Helper()
	latencies := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		t0 := time.Now()
		request()
		latencies = append(latencies, time.Since(t0))
	}
	elapsed := time.Since(start)
	b.StopTimer()
	reportLatencies(b, latencies, elapsed)
}
