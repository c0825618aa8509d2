package offline

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/transcript"
)

// sampleConv is one conversation of testdata/airline-100.jsonl with its ground-truth
// label, which only the quality measurement reads — never the analyzer.
type sampleConv struct {
	conv    transcript.Conversation
	success bool
}

// loadSample reads the OpenAI-format sample export.
func loadSample(t testing.TB) []sampleConv {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "airline-100.jsonl"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	type line struct {
		ID       string `json:"conversation_id"`
		Messages []struct {
			Role       transcript.Role `json:"role"`
			Content    *string         `json:"content"`
			Name       string          `json:"name"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Metadata struct {
			Success bool `json:"success"`
		} `json:"metadata"`
	}
	var out []sampleConv
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 8<<20)
	for sc.Scan() {
		var l line
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l))
		c := transcript.Conversation{ID: l.ID}
		for _, m := range l.Messages {
			msg := transcript.Message{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID}
			if m.Content != nil {
				msg.Content = *m.Content
			}
			for _, tc := range m.ToolCalls {
				msg.ToolCalls = append(msg.ToolCalls, transcript.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
			}
			c.Messages = append(c.Messages, msg)
		}
		out = append(out, sampleConv{conv: c, success: l.Metadata.Success})
	}
	require.NoError(t, sc.Err())
	require.Len(t, out, 100)
	return out
}

// TestSampleEvidenceIsVerifiable runs every rule on the 100 sample conversations and
// checks each diagnosis as the pipeline will: valid vocabularies and ranges, and every
// evidence quote found in analyzer.TurnText of its turn. It also checks that the
// analyzer is deterministic.
func TestSampleEvidenceIsVerifiable(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	findings := 0
	for _, s := range loadSample(t) {
		r, err := a.Diagnose(context.Background(), s.conv)
		require.NoError(t, err)
		requireValid(t, s.conv, r.Value)
		again, err := a.Diagnose(context.Background(), s.conv)
		require.NoError(t, err)
		require.Equal(t, r.Value, again.Value)
		findings += len(r.Value.Findings)
	}
	require.Greater(t, findings, 100)
}

// TestDiagnoseConcurrently shares one analyzer between goroutines, as the pipeline
// does; run with -race.
func TestDiagnoseConcurrently(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	sample := loadSample(t)
	want := make([]analyzer.Diagnosis, len(sample))
	for i, s := range sample {
		r, err := a.Diagnose(context.Background(), s.conv)
		require.NoError(t, err)
		want[i] = r.Value
	}
	got := make([]analyzer.Diagnosis, len(sample))
	var wg sync.WaitGroup
	for i, s := range sample {
		wg.Go(func() {
			r, err := a.Diagnose(context.Background(), s.conv)
			if err == nil {
				got[i] = r.Value
			}
		})
	}
	wg.Wait()
	require.Equal(t, want, got)
}

// BenchmarkDiagnose measures throughput on the sample, including the risk screen:
//
//	go test ./workers/offline -run '^$' -bench Diagnose -benchmem
func BenchmarkDiagnose(b *testing.B) {
	a := New(Options{})
	sample := loadSample(b)
	ctx := context.Background()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		for _, s := range sample {
			if _, err := a.Diagnose(ctx, s.conv); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "conversations/s")
}
