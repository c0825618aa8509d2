package ingest_test

import (
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/ingest"
)

// hostileRun is 60 MB of pattern, made as it is read.
const hostileRun = 60 << 20

// run is an io.Reader of prefix, pattern repeated to n bytes, then suffix, never held
// whole in memory.
func run(prefix, pattern string, n int, suffix string) io.Reader {
	chunk := strings.Repeat(pattern, max(1, (64<<10)/len(pattern)))
	var parts []io.Reader
	parts = append(parts, strings.NewReader(prefix))
	for ; n > 0; n -= len(chunk) {
		parts = append(parts, strings.NewReader(chunk[:min(n, len(chunk))]))
	}
	return io.MultiReader(append(parts, strings.NewReader(suffix))...)
}

// allocated returns the bytes the parse of r allocated in all, an upper bound of its
// peak, and its error.
func allocated(r io.Reader) (uint64, error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ingest.Parse(r, ingest.Limits{}, nil)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, err
}

// TestHostileRunsAreReadInBoundedMemory feeds every format 60 MB runs of white space,
// newlines and one huge quoted field or string: each is refused (or read) with the
// parser allocating a bounded amount, not memory in proportion to the run. Not
// parallel: allocation is counted for the whole process.
func TestHostileRunsAreReadInBoundedMemory(t *testing.T) {
	const bound = 80 << 20
	openai := `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}`
	cases := []struct {
		name string
		r    io.Reader
	}{
		{"openai json array of newlines", run("[", "\n", hostileRun, openai+"]")},
		{"openai json array of spaces", run("[", " ", hostileRun, openai+"]")},
		{"openai json array of CRLF", run("[", "\r\n", hostileRun, openai+"]")},
		{"anthropic json newlines inside a conversation", run(`[{"model": "claude", "messages":`, "\n", hostileRun, `[]}]`)},
		{"sharegpt json newlines between turns", run(`{"conversations": [{"from": "human", "value": "hi"},`, "\n", hostileRun, `{"from": "gpt", "value": "x"}]}`)},
		{"otlp json newlines", run(`{"resourceSpans": [`, "\n", hostileRun, `]}`)},
		{"langfuse json newlines", run(`{"data": [`, "\n", hostileRun, `]}`)},
		{"langsmith json newlines", run(`{"runs": [`, "\n", hostileRun, `]}`)},
		{"json huge string", run(`[{"messages": [{"role": "user", "content": "`, "x", hostileRun, `"}]}]`)},
		{"jsonl blank lines", run(openai+"\n", "\n", hostileRun, openai+"\n")},
		{"jsonl one line of spaces", run(openai+"\n", " ", hostileRun, openai+"\n")},
		{"otlp jsonl newlines inside a line", run(`{"resourceSpans": [`+"\n", "\n", hostileRun, `]}`+"\n")},
		{"csv blank lines", run("conversation_id,role,content\n", "\n", hostileRun, "a,user,hi\n")},
		{"csv quoted field with a newline every 64 bytes", run("conversation_id,role,content\na,user,\"", strings.Repeat("x", 63)+"\n", hostileRun, "\"\n")},
		{"csv quoted field of escaped quotes", run("conversation_id,role,content\na,user,\"", `""`, hostileRun, "\"\n")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n, err := allocated(tc.r)
			t.Logf("%.1f MB allocated; %v", float64(n)/(1<<20), err)
			require.Less(t, n, uint64(bound), "allocation bounded, not in proportion to the 60 MB run")
		})
	}
}
