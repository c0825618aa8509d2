package web_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// BenchmarkUploadMemory uploads large files to the real app binary, one fresh process
// per file (so each peak is its own), on its own database, with the embedded worker off
// so that only the upload runs, and reports the server's peak RSS (VmHWM) and the rate:
//
//	go test ./app/web -run '^$' -bench UploadMemory -benchtime 1x -v
//
// The files: csv-2M-rows-interleaved holds 1,000 conversations × 2,000 messages, one
// row each, the rows of every conversation spread over the whole file (row k belongs to
// conversation k mod 1,000), so every row must wait for the end of the file in the
// bounded spill; csv-2M-rows-grouped holds the same rows, each conversation's together;
// jsonl-1GiB is 1 GiB of OpenAI JSONL once decompressed (50,000 conversations: the
// decompressed limit and the conversation limit). All are gzip-compressed.
func BenchmarkUploadMemory(b *testing.B) {
	pool, dbURL := dbtest.Isolated(b)
	dir := b.TempDir()
	bin := apptest.Build(b, dir)
	cases := []struct {
		name  string
		write func(path string) (rawBytes int64, conversations int)
	}{
		{"csv-2M-rows-interleaved", func(path string) (int64, int) { return writeBigCSV(b, path, true) }},
		{"csv-2M-rows-grouped", func(path string) (int64, int) { return writeBigCSV(b, path, false) }},
		{"jsonl-1GiB", func(path string) (int64, int) { return writeBigJSONL(b, path, 1<<30-64<<10, 50_000) }},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			path := filepath.Join(dir, tc.name+".gz")
			raw, convs := tc.write(path)
			info, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			p := apptest.Start(b, bin, []string{"DATABASE_URL=" + dbURL, "EMBEDDED_WORKER_ENABLED=false", "LOG_LEVEL=warn", "MAX_UPLOAD_MB=1024", "MAX_UNFINISHED_TASKS=0", "TMPDIR=" + dir})
			p.WaitReady(b, time.Minute)
			sess := authtest.NewSession(b, pool, "bench-memory-"+tc.name+"@example.com")
			idle := vmHWM(b, p.Cmd.Process.Pid)
			var taskID string
			var elapsed time.Duration
			for b.Loop() {
				start := time.Now()
				taskID = uploadFile(b, "http://"+p.Addr, sess, path)
				elapsed += time.Since(start)
			}
			peak := vmHWM(b, p.Cmd.Process.Pid)
			var stored int
			if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM task_conversation WHERE task_id = $1`, taskID).Scan(&stored); err != nil {
				b.Fatal(err)
			}
			if stored != convs {
				b.Fatalf("stored %d conversations, want %d", stored, convs)
			}
			mb := float64(raw) / (1 << 20)
			b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
			b.ReportMetric(mb*float64(b.N)/elapsed.Seconds(), "MB/s")
			b.Logf("%s: %.0f MB decompressed (%.1f MB gzipped), %d conversations stored in %.1f s (%.1f MB/s); server VmHWM %.0f MB idle, %.0f MB after",
				tc.name, mb, float64(info.Size())/(1<<20), stored, elapsed.Seconds()/float64(b.N), mb*float64(b.N)/elapsed.Seconds(), float64(idle)/1024, float64(peak)/1024)
		})
	}
}

// writeBigCSV writes 1,000 conversations of 2,000 messages, one row each, gzipped.
func writeBigCSV(b *testing.B, path string, interleaved bool) (int64, int) {
	b.Helper()
	const convs, msgs = 1_000, 2_000
	w, done := gzipFile(b, path)
	n, _ := fmt.Fprintln(w, "conversation_id,turn,role,content")
	total := int64(n)
	row := func(c, m int) {
		role := "user"
		if m%2 == 1 {
			role = "assistant"
		}
		k, _ := fmt.Fprintf(w, "conv-%04d,%d,%s,message %d of conversation %d: could you look at request %d for me?\n", c, m+1, role, m+1, c, (c*7919+m)%100_000)
		total += int64(k)
	}
	if interleaved {
		for m := range msgs {
			for c := range convs {
				row(c, m)
			}
		}
	} else {
		for c := range convs {
			for m := range msgs {
				row(c, m)
			}
		}
	}
	done()
	return total, convs
}

// writeBigJSONL writes the sample again and again, each copy with ids of its own and a
// longer system prompt, until size bytes or n conversations, gzipped.
func writeBigJSONL(b *testing.B, path string, size int64, n int) (int64, int) {
	b.Helper()
	sample := readSample(b)
	lines := bytes.SplitAfter(bytes.TrimRight(sample, "\n"), []byte("\n"))
	w, done := gzipFile(b, path)
	var total int64
	count := 0
	for i := 0; count < n; i++ {
		for _, line := range lines {
			if count == n {
				break
			}
			line = bytes.Replace(line, []byte(`"conversation_id": "`), fmt.Appendf(nil, `"conversation_id": "r%d-`, i), 1)
			line = bytes.TrimRight(line, "\n")
			if pad := size*int64(count+1)/int64(n) - total - int64(len(line)) - 1; pad > 0 {
				// Widen the system prompt, which every line starts with.
				const words = "Keep answers short and confirm before acting. "
				filler := bytes.Repeat([]byte(words), int(pad)/len(words)+1)[:pad]
				line = bytes.Replace(line, []byte(`"content": "`), append([]byte(`"content": "`), filler...), 1)
			}
			k, err := w.Write(append(line, '\n'))
			if err != nil {
				b.Fatal(err)
			}
			total += int64(k)
			count++
		}
	}
	done()
	return total, count
}

// gzipFile opens path for a gzip stream written fast; done flushes and closes it.
func gzipFile(b *testing.B, path string) (*bufio.Writer, func()) {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	w := bufio.NewWriterSize(zw, 1<<20)
	return w, func() {
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
