package web_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/report/reporttest"
)

// pollers is the number of browsers polling at once in the progress benchmarks.
const pollers = 200

// warmUp is how long the progress benchmarks load the server before timing it. Under
// the first burst of 200 requests the pool opens its connections and their PostgreSQL
// backends fill their caches, which a server that has been answering for a while did
// long ago; left in the timed run, that burst once held 1.2% of a run's 30,000
// requests above 10 ms, more than p99 allows.
const warmUp = time.Second

// benchServer is the real server on its own database, with one signed-in user, behind
// a real HTTP listener on loopback.
type benchServer struct {
	pool       *pgxpool.Pool
	postmaster int // the PostgreSQL server's process, whose CPU is counted
	url        string
	cookie     *http.Cookie
	owner      int64
	client     *http.Client
}

func newBenchServer(b *testing.B) benchServer {
	b.Helper()
	pool, _ := dbtest.Isolated(b)
	return newBenchServerOn(b, pool)
}

// newBenchServerOn is newBenchServer on pool's database.
func newBenchServerOn(b *testing.B, pool *pgxpool.Pool) benchServer {
	b.Helper()
	cfg, _, err := config.Load(func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	site := web.New(web.Deps{Config: cfg, Pool: pool, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := site.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = site.Stop(context.Background()) })
	srv := httptest.NewServer(site.Handler())
	b.Cleanup(srv.Close)
	sess := authtest.NewSession(b, pool, "bench-"+uuid.NewString()+"@example.com")
	transport := &http.Transport{}
	b.Cleanup(transport.CloseIdleConnections)
	return benchServer{pool: pool, postmaster: apptest.Postmaster(b, pool), url: srv.URL, cookie: sess.Cookie, owner: sess.User.ID, client: &http.Client{Transport: transport}}
}

// get requests path as the signed-in user and reads the whole answer, which must be a
// 200.
func (s benchServer) get(b *testing.B, path string) {
	req, err := http.NewRequest(http.MethodGet, s.url+path, nil)
	if err != nil {
		b.Error(err)
		return
	}
	req.AddCookie(s.cookie)
	resp, err := s.client.Do(req)
	if err != nil {
		b.Error(err)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Errorf("GET %s: %d", path, resp.StatusCode)
	}
}

// poller is one browser's keep-alive connection to the server, polling one path as
// htmx does: the request is written once, sent as is each time, and the answer read on
// the same goroutine. net/http's client hands every request to two goroutines of its
// connection, which cost ~37 µs more CPU per request on the two cores the server
// shares with the pollers.
type poller struct {
	conn    net.Conn
	answers *bufio.Reader
	request []byte
	path    string
}

// dialPoller opens a poller's connection and sends its first request, as a browser that
// has been polling has its connection open.
func (s benchServer) dialPoller(b *testing.B, path string) *poller {
	b.Helper()
	u, err := url.Parse(s.url)
	if err != nil {
		b.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nCookie: %s\r\nHX-Request: true\r\n\r\n", path, u.Host, s.cookie.Name+"="+s.cookie.Value)
	p := &poller{conn: conn, answers: bufio.NewReader(conn), request: []byte(req), path: path}
	if err := p.get(); err != nil {
		b.Fatal(err)
	}
	return p
}

// get sends the request and reads the whole answer, which must be a 200.
func (p *poller) get() error {
	if _, err := p.conn.Write(p.request); err != nil {
		return err
	}
	resp, err := http.ReadResponse(p.answers, nil)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %d", p.path, resp.StatusCode)
	}
	return err
}

// dialPollers opens the connections of all the pollers, one after the other, the
// pollers taking paths in turn.
func (s benchServer) dialPollers(b *testing.B, paths []string) []*poller {
	b.Helper()
	ps := make([]*poller, pollers)
	for i := range ps {
		ps[i] = s.dialPoller(b, paths[i%len(paths)])
	}
	return ps
}

// Running tasks the pollers share, and how often a worker moves each one's progress
// on: about as often as the pipeline's checkpoints do in a large task.
const (
	pollTasks     = 20
	progressEvery = 100 * time.Millisecond
)

// runningTasks inserts pollTasks running tasks and returns their progress fragments'
// paths. Until the benchmark ends, their progress moves on every progressEvery, as a
// worker's would, so the pages' polls see it change.
func (s benchServer) runningTasks(b *testing.B) []string {
	b.Helper()
	ids := make([]uuid.UUID, pollTasks)
	paths := make([]string, pollTasks)
	for i := range ids {
		ids[i] = reporttest.Insert(b, s.pool, s.owner, reporttest.Task{Status: "running"}).ID
		paths[i] = "/tasks/" + ids[i].String() + "/progress"
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if _, err := s.pool.Exec(ctx, `UPDATE analysis_task SET progress_done = (progress_done + 1) % (progress_total + 1)
				WHERE id = ANY($1)`, ids); err != nil && ctx.Err() == nil {
				b.Error(err)
				return
			}
		}
	}()
	b.Cleanup(func() { cancel(); <-done })
	return paths
}

// BenchmarkProgressFragmentPaced offers the progress fragment 5,000 requests a second
// from 200 pollers (each paced, staggered) and reports the rate achieved and the
// latency percentiles. Latency counts from when a request was due, so a server that
// falls behind shows it (no coordinated omission). A second at the same rate runs
// first, untimed (warmUp).
func BenchmarkProgressFragmentPaced(b *testing.B) {
	s := newBenchServer(b)
	ps := s.dialPollers(b, s.runningTasks(b))
	const rate = 5000
	interval := time.Second * pollers / rate
	pace(b, ps, interval, int(warmUp/interval))
	cpu0 := readCPU(s.postmaster)
	b.ResetTimer()
	start := time.Now()
	latencies := pace(b, ps, interval, max(1, b.N/pollers))
	elapsed := time.Since(start)
	b.StopTimer()
	reportLatencies(b, latencies, elapsed)
	reportCPU(b, cpu0, readCPU(s.postmaster), len(latencies))
}

// pace has each poller send perPoller requests, one every interval, the pollers
// staggered across the interval, and returns how late each answer came after its
// request was due.
func pace(b *testing.B, ps []*poller, interval time.Duration, perPoller int) []time.Duration {
	start := time.Now()
	latencies := make([][]time.Duration, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Go(func() {
			due := start.Add(interval * time.Duration(i) / time.Duration(len(ps)))
			for range perPoller {
				time.Sleep(time.Until(due))
				if err := p.get(); err != nil {
					b.Error(err)
					return
				}
				latencies[i] = append(latencies[i], time.Since(due))
				due = due.Add(interval)
			}
		})
	}
	wg.Wait()
	return slices.Concat(latencies...)
}

// BenchmarkProgressFragmentMax is the capacity: 200 pollers each sending the next
// request as soon as the last one is answered, after warmUp of the same load, untimed.
func BenchmarkProgressFragmentMax(b *testing.B) {
	s := newBenchServer(b)
	ps := s.dialPollers(b, s.runningTasks(b))
	for deadline := time.Now().Add(warmUp); time.Now().Before(deadline) && !b.Failed(); {
		flood(b, ps, 10)
	}
	cpu0 := readCPU(s.postmaster)
	b.ResetTimer()
	start := time.Now()
	latencies := flood(b, ps, max(1, b.N/pollers))
	elapsed := time.Since(start)
	b.StopTimer()
	reportLatencies(b, latencies, elapsed)
	reportCPU(b, cpu0, readCPU(s.postmaster), len(latencies))
}

// flood has each poller send perPoller requests, each as soon as the last one is
// answered, and returns each request's latency.
func flood(b *testing.B, ps []*poller, perPoller int) []time.Duration {
	latencies := make([][]time.Duration, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Go(func() {
			for range perPoller {
				t0 := time.Now()
				if err := p.get(); err != nil {
					b.Error(err)
					return
				}
				latencies[i] = append(latencies[i], time.Since(t0))
			}
		})
	}
	wg.Wait()
	return slices.Concat(latencies...)
}

// BenchmarkTaskList10k is the task list of an owner with 10,000 tasks: the first page
// and a page deep in the list (keyset pagination keeps both one index range scan).
func BenchmarkTaskList10k(b *testing.B) { benchTaskList10k(b, newBenchServer(b)) }

// BenchmarkTaskList10kUnprepared is BenchmarkTaskList10k with the statements sent
// unprepared, as behind PgBouncer in transaction mode (default_query_exec_mode=cache_describe).
//
//	go test ./app/web -run '^$' -bench 'TaskList10k(Unprepared)?$' -benchtime 30000x -count 3
func BenchmarkTaskList10kUnprepared(b *testing.B) {
	_, dbURL := dbtest.Isolated(b)
	pool, err := db.Open(context.Background(), dbURL+"&default_query_exec_mode=cache_describe")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	benchTaskList10k(b, newBenchServerOn(b, pool))
}

func benchTaskList10k(b *testing.B, s benchServer) {
	ctx := context.Background()
	if _, err := s.pool.Exec(ctx, `INSERT INTO analysis_task (owner_user_id, title, status, stage, progress_done,
			progress_total, finished_at, created_at, conversation_count, isolated, source_filename)
		SELECT $1, 'Diagnosis ' || i, CASE WHEN i % 500 = 0 THEN 'running' ELSE 'completed' END, 'diagnosis', 40, 100,
			CASE WHEN i % 500 = 0 THEN NULL ELSE now() END, now() - i * interval '1 minute', 100 + i % 50, i % 3, 'export.jsonl'
		FROM generate_series(1, 10000) i`, s.owner); err != nil {
		b.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE analysis_task`); err != nil {
		b.Fatal(err)
	}
	var deepCreated time.Time
	var deepID uuid.UUID
	if err := s.pool.QueryRow(ctx, `SELECT created_at, id FROM analysis_task WHERE owner_user_id = $1 AND title = 'Diagnosis 9000'`,
		s.owner).Scan(&deepCreated, &deepID); err != nil {
		b.Fatal(err)
	}
	deep := fmt.Sprintf("/tasks?before=%d_%s", deepCreated.UnixMicro(), deepID)
	paths := []string{"/tasks", deep}
	s.get(b, paths[0])
	latencies := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		t0 := time.Now()
		s.get(b, paths[i%2])
		latencies = append(latencies, time.Since(t0))
	}
	elapsed := time.Since(start)
	b.StopTimer()
	reportLatencies(b, latencies, elapsed)
}

// reportLatencies adds the achieved request rate and latency percentiles to the
// benchmark's output.
func reportLatencies(b *testing.B, lat []time.Duration, elapsed time.Duration) {
	b.Helper()
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(float64(len(lat))*p))]) / float64(time.Millisecond)
	}
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op")
}
