package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// stageTimes follows a task from the benchmark's side by reading its stage every
// few milliseconds: the time spent in each stage, to that resolution, the CPU used
// meanwhile, and the claim and finish times the task row records.
type stageTimes struct {
	order    []string
	spent    map[string]time.Duration
	cpu      map[string]time.Duration
	claimed  time.Time
	finished time.Time
	status   string
	err      string
}

// stagePoll is how often followTask reads the task's stage.
const stagePoll = 10 * time.Millisecond

// followTask reads task id's stage until it finishes or timeout passes; cpu is read
// whenever the stage is seen to change, for the CPU of each stage (the first stage's
// from the first read that saw the task claimed, a poll after the claim at most).
func followTask(tb testing.TB, pool *pgxpool.Pool, id uuid.UUID, timeout time.Duration, cpu func() time.Duration) stageTimes {
	tb.Helper()
	st := stageTimes{spent: map[string]time.Duration{}, cpu: map[string]time.Duration{}}
	ctx := context.Background()
	deadline := time.Now().Add(timeout)
	last, lastAt, lastCPU := "", time.Time{}, time.Duration(0)
	for {
		var stage, status, msg string
		var claimed, finished *time.Time
		var now time.Time // the server's clock, which claimed_at and finished_at are on
		err := pool.QueryRow(ctx, `SELECT stage, status, error, claimed_at, finished_at, clock_timestamp() FROM analysis_task WHERE id = $1`, id).
			Scan(&stage, &status, &msg, &claimed, &finished, &now)
		if err != nil {
			tb.Fatalf("scale: read task: %v", err)
		}
		if claimed != nil && last == "" {
			last, lastAt, lastCPU = stage, *claimed, cpu()
			st.order = append(st.order, stage)
		}
		if last != "" && stage != last && finished == nil {
			used := cpu()
			st.spent[last] += now.Sub(lastAt)
			st.cpu[last] += used - lastCPU
			last, lastAt, lastCPU = stage, now, used
			st.order = append(st.order, stage)
		}
		if finished != nil { // a stage begun since the last read is counted in the one before
			// finished_at is the finishing transaction's start, which can be before this
			// read saw the stage it set: then the stage took no time that can be told.
			st.spent[last] += max(0, finished.Sub(lastAt))
			st.cpu[last] += cpu() - lastCPU
			st.claimed, st.finished, st.status, st.err = *claimed, *finished, status, msg
			return st
		}
		if time.Now().After(deadline) {
			tb.Fatalf("scale: the task did not finish within %s (stage %s)", timeout, stage)
		}
		time.Sleep(stagePoll)
	}
}

// statementStats reads pg_stat_statements for one database, when the server loads it.
type statementStats struct {
	pool *pgxpool.Pool
	ok   bool
	why  string
}

func newStatementStats(pool *pgxpool.Pool) *statementStats {
	s := &statementStats{pool: pool}
	if _, err := pool.Exec(context.Background(), `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		s.why = err.Error()
		return s
	}
	s.ok = s.reset() == nil
	return s
}

func (s *statementStats) reset() error {
	_, err := s.pool.Exec(context.Background(), `SELECT pg_stat_statements_reset()`)
	if err != nil {
		s.why = err.Error()
	}
	return err
}

// topStatement is one statement's share of the database's time.
type topStatement struct {
	query       string
	calls       int64
	totalMillis float64
}

// read returns the statements sent to this database since the last reset (leaving out
// the benchmark's own reads of the task and of these statistics, and the statements
// run inside others, such as foreign-key checks) and the costliest.
func (s *statementStats) read(tb testing.TB, top int) (int64, []topStatement) {
	tb.Helper()
	if !s.ok {
		return -1, nil
	}
	const own = `toplevel AND query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE 'SELECT stage, status, error, claimed_at%'`
	ctx := context.Background()
	var calls int64
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND `+own).Scan(&calls); err != nil {
		tb.Fatalf("scale: pg_stat_statements: %v", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT left(regexp_replace(query, '\s+', ' ', 'g'), 110), calls, total_exec_time
		FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND `+own+`
		ORDER BY total_exec_time DESC LIMIT $1`, top)
	if err != nil {
		tb.Fatalf("scale: pg_stat_statements: %v", err)
	}
	defer rows.Close()
	var out []topStatement
	for rows.Next() {
		var t topStatement
		if err := rows.Scan(&t.query, &t.calls, &t.totalMillis); err != nil {
			tb.Fatal(err)
		}
		out = append(out, t)
	}
	return calls, out
}

// procStatus reads a field of /proc/<pid>/status in KiB (VmHWM, VmRSS).
func procStatus(tb testing.TB, pid int, field string) int64 {
	tb.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return kb
		}
	}
	tb.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// resetPeakRSS starts the peak RSS (VmHWM) of pid again from its current RSS, so the
// peak of one phase can be read on its own; false where the kernel refuses.
func resetPeakRSS(pid int) bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) == nil
}
