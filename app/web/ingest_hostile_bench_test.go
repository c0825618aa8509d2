package web_test

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// BenchmarkUploadMemoryHostile uploads hostile files to the real app binary, one fresh
// process per case, and reports each answer's status and the server's peak RSS
// (VmHWM); "two-at-once" cases send the same file twice together:
//
//	go test ./app/web -run '^$' -bench UploadMemoryHostile -benchtime 1x -v
//
// The files, gzipped: 60 MB of newlines (or spaces) between the values of a JSON
// array, inside an Anthropic conversation, in an OTLP JSON document and between CSV
// rows; a 600 MB quoted CSV field with a newline every 64 bytes; a 600 MB JSON string.
func BenchmarkUploadMemoryHostile(b *testing.B) {
	pool, dbURL := dbtest.Isolated(b)
	dir := b.TempDir()
	bin := apptest.Build(b, dir)
	const run, huge = 60 << 20, 600 << 20
	csvHeader := "conversation_id,role,content\n"
	cases := []struct {
		name                    string
		prefix, pattern, suffix string
		n                       int
		together                int
	}{
		{"openai-json-newlines-60MB", "[", "\n", `{"messages": []}]`, run, 1},
		{"openai-json-spaces-60MB", "[", " ", `{"messages": []}]`, run, 1},
		{"anthropic-json-newlines-60MB", `[{"model": "claude", "messages":`, "\n", `[]}]`, run, 1},
		{"anthropic-json-newlines-60MB-two-at-once", `[{"model": "claude", "messages":`, "\n", `[]}]`, run, 2},
		{"otlp-json-newlines-60MB", `{"resourceSpans": [`, "\n", `]}`, run, 1},
		{"csv-blank-lines-60MB", csvHeader, "\n", "a,user,hi\n", run, 1},
		{"csv-quoted-field-600MB", csvHeader + `a,user,"`, strings.Repeat("x", 63) + "\n", "\"\n", huge, 1},
		{"csv-quoted-field-600MB-two-at-once", csvHeader + `a,user,"`, strings.Repeat("x", 63) + "\n", "\"\n", huge, 2},
		{"json-string-600MB", `[{"messages": [{"role": "user", "content": "`, "x", `"}]}]`, huge, 1},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			path := filepath.Join(dir, tc.name+".gz")
			writeRun(b, path, tc.prefix, tc.pattern, tc.n, tc.suffix)
			p := apptest.Start(b, bin, []string{"DATABASE_URL=" + dbURL, "EMBEDDED_WORKER_ENABLED=false", "LOG_LEVEL=warn", "MAX_UPLOAD_MB=1024", "MAX_UNFINISHED_TASKS=0", "TMPDIR=" + dir})
			p.WaitReady(b, time.Minute)
			sess := authtest.NewSession(b, pool, "bench-hostile-"+tc.name+"@example.com")
			statuses := make([]int, tc.together)
			for b.Loop() {
				var wg sync.WaitGroup
				for i := range statuses {
					wg.Go(func() {
						resp := sess.UploadFile(b, "http://"+p.Addr, tc.name, path)
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						statuses[i] = resp.StatusCode
					})
				}
				wg.Wait()
			}
			for _, s := range statuses {
				if s != http.StatusUnprocessableEntity {
					b.Fatalf("status %v, want 422 for each", statuses)
				}
			}
			peak := vmHWM(b, p.Cmd.Process.Pid)
			b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
			b.ReportMetric(float64(statuses[0]), "status")
			b.Logf("%s: statuses %v, server VmHWM %.0f MB", tc.name, statuses, float64(peak)/1024)
		})
	}
}

// writeRun writes prefix, pattern repeated to n bytes, and suffix, gzipped.
func writeRun(b *testing.B, path, prefix, pattern string, n int, suffix string) {
	b.Helper()
	w, done := gzipFile(b, path)
	chunk := strings.Repeat(pattern, max(1, (1<<20)/len(pattern)))
	fmt.Fprint(w, prefix)
	for ; n > 0; n -= len(chunk) {
		fmt.Fprint(w, chunk[:min(n, len(chunk))])
	}
	fmt.Fprint(w, suffix)
	done()
}
