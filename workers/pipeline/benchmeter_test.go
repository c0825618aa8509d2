package pipeline_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// taskMeter is a slog.Handler for the worker under benchmark. From the worker's
// records it keeps when each task was claimed, entered each stage and finished, and
// the CPU time used from claim to finish by this process and by PostgreSQL. finished
// receives one value per finished task, so the benchmark waits without polling the
// database alongside the work it measures.
type taskMeter struct {
	mu       sync.Mutex
	events   []stageEvent
	finished chan struct{}

	pgPIDs         []string // the PostgreSQL processes, found again after each task
	cpuAtClaim     cpuTimes
	goCPU, pgCPU   time.Duration // claim to finish, summed over the tasks
	tasksMeasured  int
	statementsSent *statementCounter
}

type stageEvent struct {
	at    time.Time
	stage string // a stage, or "claimed" / "finished"
}

func newTaskMeter() *taskMeter {
	return &taskMeter{finished: make(chan struct{}, 1), pgPIDs: postgresPIDs(), statementsSent: &statementCounter{}}
}

func (m *taskMeter) Enabled(context.Context, slog.Level) bool { return true }
func (m *taskMeter) WithAttrs([]slog.Attr) slog.Handler       { return m }
func (m *taskMeter) WithGroup(string) slog.Handler            { return m }

func (m *taskMeter) Handle(_ context.Context, r slog.Record) error {
	name := ""
	switch r.Message {
	case "task claimed":
		name = "claimed"
	case "task finished":
		name = "finished"
	case "stage":
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "stage" {
				name = a.Value.String()
			}
			return true
		})
	}
	if name == "" {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events = append(m.events, stageEvent{at: r.Time, stage: name})
	switch name {
	case "claimed":
		m.cpuAtClaim = readCPU(m.pgPIDs)
	case "finished":
		now := readCPU(m.pgPIDs)
		m.goCPU += now.self - m.cpuAtClaim.self
		m.pgCPU += now.postgres - m.cpuAtClaim.postgres
		m.tasksMeasured++
		m.pgPIDs = postgresPIDs() // connections opened during the task are counted from the next
		m.finished <- struct{}{}
	}
	return nil
}

// reset forgets what was measured so far (a warm-up task); call it when no task runs.
func (m *taskMeter) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events, m.goCPU, m.pgCPU, m.tasksMeasured = nil, 0, 0, 0
	m.statementsSent.statements.Store(0)
	m.statementsSent.roundTrips.Store(0)
}

// taskFigures is what a benchmark measured, per task.
type taskFigures struct {
	stages                 map[string]time.Duration // time in each stage
	total                  time.Duration            // claim to finish
	goCPU, pgCPU           time.Duration            // CPU in this process and in PostgreSQL
	statements, roundTrips float64                  // sent by the worker's pool
}

// figures returns the measurements per task; call it when no task runs.
func (m *taskMeter) figures() taskFigures {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := taskFigures{stages: map[string]time.Duration{}}
	var claimed time.Time
	for i, e := range m.events {
		switch e.stage {
		case "claimed":
			claimed = e.at
		case "finished":
			f.total += e.at.Sub(claimed)
		}
		if e.stage != "finished" && i+1 < len(m.events) {
			f.stages[e.stage] += m.events[i+1].at.Sub(e.at)
		}
	}
	n := max(m.tasksMeasured, 1)
	for s := range f.stages {
		f.stages[s] /= time.Duration(n)
	}
	f.total /= time.Duration(n)
	f.goCPU, f.pgCPU = m.goCPU/time.Duration(n), m.pgCPU/time.Duration(n)
	f.statements = float64(m.statementsSent.statements.Load()) / float64(n)
	f.roundTrips = float64(m.statementsSent.roundTrips.Load()) / float64(n)
	return f
}

// cpuTimes is the CPU time used so far by this process and by the PostgreSQL
// processes, from /proc; zero where /proc cannot be read.
type cpuTimes struct{ self, postgres time.Duration }

// clockTick is the unit of /proc/<pid>/stat times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

func readCPU(pgPIDs []string) cpuTimes {
	var c cpuTimes
	c.self, _ = procCPU("/proc/self/stat")
	for _, pid := range pgPIDs {
		if t, ok := procCPU(filepath.Join("/proc", pid, "stat")); ok {
			c.postgres += t
		}
	}
	return c
}

// postgresPIDs lists the running processes named postgres.
func postgresPIDs() []string {
	var pids []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		comm, err := os.ReadFile(filepath.Join(d, "comm"))
		if err == nil && strings.TrimSpace(string(comm)) == "postgres" {
			pids = append(pids, filepath.Base(d))
		}
	}
	return pids
}

// procCPU reads utime+stime of one process.
func procCPU(path string) (time.Duration, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * clockTick, true
}

// statementCounter is a pgx tracer that counts the statements a pool sends and the
// round trips they take (a batch is one round trip however many statements it holds;
// begin and commit count as statements).
type statementCounter struct {
	statements, roundTrips atomic.Int64
}

func (c *statementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.statements.Add(1)
	c.roundTrips.Add(1)
	return ctx
}

func (c *statementCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *statementCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.roundTrips.Add(1)
	return ctx
}

func (c *statementCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {
	c.statements.Add(1)
}

func (c *statementCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// countedPool opens a pool on url whose statements c counts, closed when the test ends.
func countedPool(tb testing.TB, url string, c *statementCounter) *pgxpool.Pool {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	require.NoError(tb, err)
	cfg.ConnConfig.Tracer = c
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(tb, err)
	tb.Cleanup(pool.Close)
	return pool
}
