package web_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// ingestBenchBytes is the size of the generated upload.
const ingestBenchBytes = 100 << 20

// BenchmarkUploadIngest uploads a 100 MB OpenAI JSONL file (the sample repeated with new
// conversation ids) to the real app binary, run as a child process on its own database,
// and reports the end-to-end rate into PostgreSQL and the server's peak RSS (VmHWM).
// In the same run it times psql's \copy of the same rows into task_conversation, as the
// floor the upload is compared with.
//
//	go test ./app/web -run '^$' -bench UploadIngest -benchtime 1x
func BenchmarkUploadIngest(b *testing.B) {
	pool, dbURL := dbtest.Isolated(b)
	dir := b.TempDir()
	file, size := writeRepeatedSample(b, filepath.Join(dir, "upload.jsonl"), ingestBenchBytes)
	bin := apptest.Build(b, dir)
	// No worker runs the uploaded tasks, which pile up unfinished: no cap on them.
	p := apptest.Start(b, bin, []string{"DATABASE_URL=" + dbURL, "EMBEDDED_WORKER_ENABLED=false", "LOG_LEVEL=warn", "MAX_UNFINISHED_TASKS=0"})
	p.WaitReady(b, time.Minute)
	sess := authtest.NewSession(b, pool, "bench-ingest@example.com")
	idleHWM := vmHWM(b, p.Cmd.Process.Pid)

	var taskID string
	var elapsed time.Duration
	for b.Loop() {
		start := time.Now()
		taskID = uploadFile(b, "http://"+p.Addr, sess, file)
		elapsed += time.Since(start)
	}
	peak := vmHWM(b, p.Cmd.Process.Pid)
	mb := float64(size) / (1 << 20)
	rate := mb * float64(b.N) / elapsed.Seconds()

	var rows int
	var compression string
	if err := pool.QueryRow(context.Background(), `
		SELECT (SELECT count(*) FROM task_conversation WHERE task_id = $1),
		       (SELECT CASE attcompression WHEN 'l' THEN 'lz4' WHEN 'p' THEN 'pglz' ELSE current_setting('default_toast_compression') END
		        FROM pg_attribute WHERE attrelid = 'task_conversation'::regclass AND attname = 'messages')`, taskID).Scan(&rows, &compression); err != nil {
		b.Fatal(err)
	}
	copyTime := psqlCopy(b, dbURL, dir, taskID, sess.User.ID)

	b.ReportMetric(rate, "MB/s")
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
	b.ReportMetric(mb/copyTime.Seconds(), "psql-copy-MB/s")
	b.Logf("%.0f MB, %d conversations (messages compressed with %s): upload %.2f s (%.1f MB/s); psql \\copy of the same rows %.2f s (%.1f MB/s); server VmHWM %.0f MB idle, %.0f MB after",
		mb, rows, compression, elapsed.Seconds()/float64(b.N), rate, copyTime.Seconds(), mb/copyTime.Seconds(), float64(idleHWM)/1024, float64(peak)/1024)
}

// writeRepeatedSample writes the sample again and again, each copy with its own
// conversation ids, until the file holds at least size bytes.
func writeRepeatedSample(b *testing.B, path string, size int64) (string, int64) {
	b.Helper()
	sample := readSample(b)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	var n int64
	for i := 0; n < size; i++ {
		copyOf := bytes.ReplaceAll(sample, []byte(`"conversation_id": "`), fmt.Appendf(nil, `"conversation_id": "r%d-`, i))
		m, err := w.Write(copyOf)
		if err != nil {
			b.Fatal(err)
		}
		n += int64(m)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	return path, n
}

// uploadFile posts path as the upload form does, streaming it from disk, and returns
// the new task's id.
func uploadFile(b *testing.B, baseURL string, sess authtest.Session, path string) string {
	b.Helper()
	resp := sess.UploadFile(b, baseURL, "100 MB benchmark", path)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := taskLocation.FindStringSubmatch(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || m == nil {
		b.Fatalf("upload: %d %s\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	return m[1]
}

// psqlCopy exports the task's stored rows to a CSV file (untimed), then times psql's
// \copy of them into task_conversation under a new task of the same owner.
func psqlCopy(b *testing.B, dbURL, dir, taskID string, owner int64) time.Duration {
	b.Helper()
	target := uuid.NewString()
	csv := filepath.Join(dir, "rows.csv")
	psql(b, dbURL, fmt.Sprintf(`INSERT INTO analysis_task (id, owner_user_id, title) VALUES ('%s', %d, 'psql copy')`, target, owner))
	psql(b, dbURL, fmt.Sprintf(`\copy (SELECT '%s'::uuid, owner_user_id, seq, external_id, messages, metadata, message_count FROM task_conversation WHERE task_id = '%s' ORDER BY seq) TO '%s' WITH (FORMAT csv)`,
		target, taskID, csv))
	start := time.Now()
	psql(b, dbURL, fmt.Sprintf(`\copy task_conversation (task_id, owner_user_id, seq, external_id, messages, metadata, message_count) FROM '%s' WITH (FORMAT csv)`, csv))
	return time.Since(start)
}

func psql(b *testing.B, dbURL, command string) {
	b.Helper()
	out, err := exec.Command("psql", dbURL, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", command).CombinedOutput()
	if err != nil {
		b.Fatalf("psql %s: %v\n%s", command, err, out)
	}
}

// vmHWM is the peak resident set size of process pid, in KiB.
func vmHWM(b *testing.B, pid int) int64 {
	b.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb
		}
	}
	b.Fatal("no VmHWM in /proc/pid/status")
	return 0
}
