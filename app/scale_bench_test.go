package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/taskstate"
)

// The content of the scaling benchmark's conversations, to check that the cost does
// not depend on it: -scale.words=4 -scale.vocabulary=64 -scale.seed=2 is another upload
// of the same size.
var (
	scaleWordsFlag = flag.Int("scale.words", 3, "BenchmarkScale: words appended to every user message")
	scaleVocab     = flag.Int("scale.vocabulary", 16, "BenchmarkScale: how many words they are drawn from")
	scaleSeed      = flag.Uint64("scale.seed", 1, "BenchmarkScale: the seed of the words drawn")
)

// scaleSizes are the uploads BenchmarkScale runs, by sub-benchmark name. The target
// compares 4k with 40k; 50k is the largest upload allowed.
var scaleSizes = []struct {
	name string
	n    int
}{{"1k", 1_000}, {"2k", 2_000}, {"4k", 4_000}, {"10k", 10_000}, {"20k", 20_000}, {"40k", 40_000}, {"50k", 50_000}}

// scaleDownloads are the files downloaded in parallel after the task, as the task page
// links them.
var scaleDownloads = []string{"report.json", "actions.csv", "findings.csv", "report.md"}

// parallelDownloads is how many copies of each file are downloaded at once.
const parallelDownloads = 5

// BenchmarkScale uploads n unique conversations made from the sample (each user message
// with words appended, see scaleContent) to the real binary on its own database, lets the
// embedded worker diagnose them offline, then downloads every file five times at once.
// From 40,000 it also times searches beside another owner's quality pass and, after
// another owner's small task, reads the task page, a conversation page and the task
// list. It reports claim to finish and the time of each stage, the statements per
// conversation (pg_stat_statements, when the server loads it), the CPU of the server and
// of PostgreSQL (in all, the rate it would allow with every core busy, and the share of
// the cores each stage kept busy), and the server's peak RSS through upload and task and
// what the downloads add to it. See BENCHMARKS.md.
//
//	go test ./app -run '^$' -bench 'Scale/(1k|10k|50k)$' -benchtime 1x -timeout 60m -v
func BenchmarkScale(b *testing.B) {
	bin := apptest.Build(b, b.TempDir())
	content := scaleContent{Words: *scaleWordsFlag, Vocabulary: *scaleVocab, Seed: *scaleSeed}
	for _, size := range scaleSizes {
		b.Run(size.name, func(b *testing.B) {
			for b.Loop() {
				runScale(b, bin, size.n, content)
			}
		})
	}
}

func runScale(b *testing.B, bin string, n int, content scaleContent) {
	b.StopTimer()
	pool, dbURL := dbtest.Isolated(b)
	dir := b.TempDir()
	file, size := writeScaleUpload(b, dir, n, content)
	p := apptest.Start(b, bin, []string{"DATABASE_URL=" + dbURL, "WORKER_POLL_MS=200", "LOG_LEVEL=warn", "MAX_UPLOAD_MB=2000"})
	p.WaitReady(b, time.Minute)
	pid := p.Cmd.Process.Pid
	sess := authtest.NewSession(b, pool, "scale@example.com")
	stmts := newStatementStats(pool)
	postmaster := apptest.Postmaster(b, pool)
	base := "http://" + p.Addr
	idle := procStatus(b, pid, "VmHWM")

	b.StartTimer()
	goStart, pgStart := apptest.ProcessCPU(pid, false), apptest.PostgresCPU(postmaster)
	uploadStart := time.Now()
	id := uploadScale(b, base, sess, file)
	uploaded := time.Since(uploadStart)
	goUpload, pgUpload := apptest.ProcessCPU(pid, false)-goStart, apptest.PostgresCPU(postmaster)-pgStart
	taskCPU := func() time.Duration { return apptest.ProcessCPU(pid, false) + apptest.PostgresCPU(postmaster) }
	st := followTask(b, pool, id, 50*time.Minute, taskCPU)
	goCPU, pgCPU := apptest.ProcessCPU(pid, false)-goStart-goUpload, apptest.PostgresCPU(postmaster)-pgStart-pgUpload
	b.StopTimer()
	require.Equal(b, "completed", st.status, st.err)
	peak := procStatus(b, pid, "VmHWM")
	statements, top := stmts.read(b, 12)

	total := st.finished.Sub(st.claimed)
	b.ReportMetric(total.Seconds(), "claim-to-finish-s")
	b.ReportMetric(float64(n)/total.Seconds(), "conversations/s")
	b.ReportMetric(uploaded.Seconds(), "upload-s")
	for _, stage := range st.order {
		b.ReportMetric(st.spent[stage].Seconds(), stage+"-s")
	}
	if statements >= 0 {
		b.ReportMetric(float64(statements)/float64(n), "statements/conversation")
	} else {
		b.Logf("statements not counted: the server does not load pg_stat_statements (%s)", stmts.why)
	}
	b.ReportMetric(float64(goCPU.Microseconds())/float64(n), "task-server-cpu-µs/conversation")
	b.ReportMetric(float64(pgCPU.Microseconds())/float64(n), "task-postgres-cpu-µs/conversation")
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
	// The rate the task's CPU allows: with every core on it, server and PostgreSQL
	// together, the task could go no faster than this; busy is the share of the cores
	// it kept working. A rate target above the bound needs less work per conversation,
	// not better overlap. Both need PostgreSQL on this machine (TEST_DATABASE_URL may
	// name another).
	cores := float64(runtime.GOMAXPROCS(0))
	local := postmaster != 0 && pgCPU > 0
	if local {
		b.ReportMetric(cores*float64(n)/(goCPU+pgCPU).Seconds(), "cpu-bound-conversations/s")
		b.ReportMetric((goCPU+pgCPU).Seconds()/total.Seconds()/cores, "busy")
	}

	var lines []string
	for _, stage := range st.order {
		spent := st.spent[stage].Seconds()
		line := fmt.Sprintf("%s %.2f s", stage, spent)
		if spent > 0 && local {
			line += fmt.Sprintf(" at %.0f%% CPU", 100*st.cpu[stage].Seconds()/spent/cores)
		}
		lines = append(lines, line)
	}
	b.Logf("%d conversations (%.0f MB of JSONL): upload %.1f s; claim to finish %.2f s = %.0f conversations/s (%s); statements %d (%.2f per conversation); CPU of the upload: server %.1f s, PostgreSQL %.1f s; of the task: server %.1f s, PostgreSQL %.1f s; server VmHWM idle %.0f MB, after the task %.0f MB",
		n, float64(size)/(1<<20), uploaded.Seconds(), total.Seconds(), float64(n)/total.Seconds(), strings.Join(lines, ", "),
		statements, float64(statements)/float64(n), goUpload.Seconds(), pgUpload.Seconds(), goCPU.Seconds(), pgCPU.Seconds(), float64(idle)/1024, float64(peak)/1024)
	for _, t := range top {
		b.Logf("  %9.0f ms %8d calls  %s", t.totalMillis, t.calls, t.query)
	}

	added := int64(0)
	for _, name := range scaleDownloads {
		before := procStatus(b, pid, "VmRSS")
		if !resetPeakRSS(pid) {
			before = procStatus(b, pid, "VmHWM")
		}
		took, bytes := downloadParallel(b, base, sess, id, name)
		after := procStatus(b, pid, "VmHWM")
		added = max(added, after-before)
		b.Logf("%d × %s in parallel: %.2f s, %.1f MB each; peak RSS %.0f MB (+%.0f MB)",
			parallelDownloads, name, took.Seconds(), float64(bytes)/(1<<20), float64(after)/1024, float64(after-before)/1024)
	}
	b.ReportMetric(float64(added)/1024, "download-added-MB")
	b.ReportMetric(float64(max(peak, procStatus(b, pid, "VmHWM")))/1024, "peak-RSS-all-MB")
	if n >= 40_000 {
		searchesBesidePass(b, pool, base, dir, content, sess, id)
		neighbourTask(b, pool, base, dir, content, id)
		pageTimes(b, pool, base, sess, id)
	}
	b.StartTimer()
}

// uploadScale posts the gzipped file as the upload form does, streaming it from disk,
// and returns the new task's id.
func uploadScale(b testing.TB, base string, sess authtest.Session, path string) uuid.UUID {
	b.Helper()
	resp := sess.UploadFile(b, base, "Scale "+filepath.Base(path), path)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	require.Equal(b, http.StatusSeeOther, resp.StatusCode, string(body))
	id, err := uuid.Parse(strings.TrimPrefix(resp.Header.Get("Location"), "/tasks/"))
	require.NoError(b, err)
	return id
}

// downloadParallel downloads one of the task's files parallelDownloads times at once
// and returns how long the slowest took and the file's size.
func downloadParallel(b *testing.B, base string, sess authtest.Session, id uuid.UUID, name string) (time.Duration, int64) {
	b.Helper()
	start := time.Now()
	sizes := make([]int64, parallelDownloads)
	errs := make([]error, parallelDownloads)
	var wg sync.WaitGroup
	for i := range parallelDownloads {
		wg.Go(func() { sizes[i], errs[i] = fetch(base, sess, "/tasks/"+id.String()+"/"+name) })
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(b, err)
	}
	return time.Since(start), sizes[0]
}

// fetch GETs path with the session and reads the body to its end.
func fetch(base string, sess authtest.Session, path string) (int64, error) {
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		return 0, err
	}
	req.AddCookie(sess.Cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: %d", path, resp.StatusCode)
	}
	return n, err
}

// neighbourConversations is the size of the task another owner runs before the pages
// are timed: below the size whose statistics a task refreshes, as most tasks are.
const neighbourConversations = 500

// neighbourTask has another owner upload and diagnose a small task, as the pages of a
// shared instance are read between other owners' tasks: their search documents share
// the table of search documents with the large task's, and the pages are timed with
// them in it. It reports the pages the pending list of the large task's words' index
// holds afterwards, which its searches read.
func neighbourTask(b *testing.B, pool *pgxpool.Pool, base, dir string, content scaleContent, large uuid.UUID) {
	b.Helper()
	finishTask(b, pool, uploadAs(b, pool, base, dir, "neighbour@example.com", neighbourConversations, content))
	if pending, ok := searchPendingPages(b, pool, large); ok {
		b.ReportMetric(float64(pending), "search-pending-pages")
	}
}

// passConversations is the size of the task another owner runs while the large task's
// searches are timed beside its quality pass.
const passConversations = 10_000

// searchesBesidePass has another owner upload a task of passConversations and times
// searches of the large task while that task's quality pass writes its search
// documents, which wait in their words' index's pending list until the list is full or
// the pass merges it. It reports the median and slowest search, the most pages that
// list was seen to hold, and the most the list of the large task's index held: the
// same list when both tasks' documents are in one partition (1 in 16).
func searchesBesidePass(b *testing.B, pool *pgxpool.Pool, base, dir string, content scaleContent, sess authtest.Session, id uuid.UUID) {
	b.Helper()
	ctx := context.Background()
	other := uploadAs(b, pool, base, dir, "busy-neighbour@example.com", passConversations, content)
	searches := []string{
		"/tasks/" + id.String() + "/conversations?q=refund&label=failed",
		"/tasks/" + id.String() + "/conversations?q=compensation",
	}
	var times []time.Duration
	most, searched, counted := int64(0), int64(0), true
	deadline := time.Now().Add(5 * time.Minute)
	for seen := false; time.Now().Before(deadline); {
		var status, stage string
		require.NoError(b, pool.QueryRow(ctx, `SELECT status, stage FROM analysis_task WHERE id = $1`, other).Scan(&status, &stage))
		if stage != string(taskstate.Quality) {
			if seen || (status != "pending" && status != "running") {
				break
			}
			time.Sleep(stagePoll)
			continue
		}
		seen = true
		start := time.Now()
		_, err := fetch(base, sess, searches[len(times)%len(searches)])
		require.NoError(b, err)
		times = append(times, time.Since(start))
		if counted {
			var pending, ours int64
			pending, counted = searchPendingPages(b, pool, other)
			ours, _ = searchPendingPages(b, pool, id)
			most, searched = max(most, pending), max(searched, ours)
		}
	}
	finishTask(b, pool, other)
	if len(times) == 0 {
		b.Logf("no search ran beside the other owner's quality pass")
		return
	}
	b.ReportMetric(float64(median(times).Microseconds())/1000, "search-beside-pass-p50-ms")
	b.ReportMetric(float64(slices.Max(times).Microseconds())/1000, "search-beside-pass-max-ms")
	if counted {
		b.ReportMetric(float64(most), "search-pending-pages-beside-pass")
		b.ReportMetric(float64(searched), "search-pending-pages-searched-beside-pass")
	}
	slow := 0
	for _, t := range times {
		if t > 50*time.Millisecond {
			slow++
		}
	}
	b.Logf("%d searches beside another owner's quality pass of %d conversations, %d of them over 50 ms", len(times), passConversations, slow)
}

// uploadAs has a new owner with email upload n conversations made as the large task's
// were, and returns the task's id.
func uploadAs(b *testing.B, pool *pgxpool.Pool, base, dir, email string, n int, content scaleContent) uuid.UUID {
	b.Helper()
	file, _ := writeScaleUpload(b, dir, n, content)
	return uploadScale(b, base, authtest.NewSession(b, pool, email), file)
}

// finishTask waits for another owner's task to complete.
func finishTask(b *testing.B, pool *pgxpool.Pool, id uuid.UUID) {
	b.Helper()
	st := followTask(b, pool, id, 5*time.Minute, func() time.Duration { return 0 })
	require.Equal(b, "completed", st.status, st.err)
}

// searchPendingPages reads how many pages the pending list of the words' index that
// holds task's search documents holds (0 before it has any); false, logged, where it
// cannot be read.
func searchPendingPages(b *testing.B, pool *pgxpool.Pool, task uuid.UUID) (int64, bool) {
	b.Helper()
	p, err := dbtest.PendingSearch(context.Background(), pool, task)
	if err != nil {
		b.Logf("the words' index's pending list is not read: %v", err)
		return 0, false
	}
	return p.Pages, true
}

// pageTimes gives the task's owner 10,000 more tasks and times the task page, a
// conversation page, the conversation list and two searches of it, the first and a deep
// page of the task list, and marking an issue expected and taking the mark back, one
// request at a time, reporting the median and the slowest of each.
func pageTimes(b *testing.B, pool *pgxpool.Pool, base string, sess authtest.Session, id uuid.UUID) {
	b.Helper()
	ctx := context.Background()
	_, err := pool.Exec(ctx, `INSERT INTO analysis_task (owner_user_id, title, status, stage, created_at, finished_at, conversation_count)
		SELECT $1, 'Earlier diagnosis ' || i, 'completed', 'finishing', now() - make_interval(hours => i), now() - make_interval(hours => i), 100
		FROM generate_series(1, 10000) AS i`, sess.User.ID)
	require.NoError(b, err)
	_, err = pool.Exec(ctx, `ANALYZE analysis_task`)
	require.NoError(b, err)
	var seq int32
	require.NoError(b, pool.QueryRow(ctx, `SELECT conversation_seq FROM task_finding WHERE task_id = $1
		ORDER BY conversation_seq DESC LIMIT 1`, id).Scan(&seq))
	var deep store.TaskCursor
	require.NoError(b, pool.QueryRow(ctx, `SELECT created_at, id FROM analysis_task WHERE owner_user_id = $1
		ORDER BY created_at DESC, id DESC OFFSET 9000 LIMIT 1`, sess.User.ID).Scan(&deep.CreatedAt, &deep.ID))
	for _, page := range []struct{ name, path string }{
		{"task-page", "/tasks/" + id.String()},
		{"conversation-page", fmt.Sprintf("/tasks/%s/conversations/%d", id, seq)},
		{"conversation-list", "/tasks/" + id.String() + "/conversations"},
		{"conversation-search", "/tasks/" + id.String() + "/conversations?q=refund&label=failed"},
		// a word of 8% of the conversations, those that sort last by failure score
		{"conversation-search-late", "/tasks/" + id.String() + "/conversations?q=compensation"},
		// a tool's name, searched whole in the documents that hold names
		{"conversation-search-tool", "/tasks/" + id.String() + "/conversations?q=get_reservation_details"},
		{"task-list", "/tasks"},
		{"task-list-deep", "/tasks?before=" + url.QueryEscape(deep.String())},
	} {
		const requests = 21
		times := make([]time.Duration, requests)
		for i := range requests {
			start := time.Now()
			_, err := fetch(base, sess, page.path)
			require.NoError(b, err)
			times[i] = time.Since(start)
		}
		b.ReportMetric(float64(median(times).Microseconds())/1000, page.name+"-p50-ms")
		b.ReportMetric(float64(slices.Max(times).Microseconds())/1000, page.name+"-max-ms")
	}
	markTimes(b, pool, base, sess, id)
}

// markTimes marks the task's largest ranked issue expected and takes the mark back, 21
// times each, as the page's plain forms post them: each re-ranks the task's Actions.
func markTimes(b *testing.B, pool *pgxpool.Pool, base string, sess authtest.Session, id uuid.UUID) {
	b.Helper()
	var idx int
	require.NoError(b, pool.QueryRow(context.Background(), `SELECT idx FROM task_cluster WHERE task_id = $1 AND NOT expected
		AND idx IN (SELECT cluster_idx FROM task_action WHERE task_id = $1 AND rank IS NOT NULL)
		ORDER BY cardinality(conversation_seqs) DESC LIMIT 1`, id).Scan(&idx))
	form := url.Values{"_csrf": {sess.CSRFToken}, "reason": {"expected here"}}.Encode()
	path := fmt.Sprintf("%s/tasks/%s/clusters/%d/expected", base, id, idx)
	client := http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	const requests = 21
	times := map[string][]time.Duration{}
	for range requests {
		for _, step := range []struct{ name, path string }{{"mark-expected", path}, {"unmark-expected", path + "/delete"}} {
			req, err := http.NewRequest(http.MethodPost, step.path, strings.NewReader(form))
			require.NoError(b, err)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.AddCookie(sess.Cookie)
			start := time.Now()
			resp, err := client.Do(req)
			require.NoError(b, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			require.Equal(b, http.StatusSeeOther, resp.StatusCode, step.name)
			times[step.name] = append(times[step.name], time.Since(start))
		}
	}
	for name, ts := range times {
		b.ReportMetric(float64(median(ts).Microseconds())/1000, name+"-p50-ms")
		b.ReportMetric(float64(slices.Max(ts).Microseconds())/1000, name+"-max-ms")
	}
}

// median is the middle of ds.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
