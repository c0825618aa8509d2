package offline

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// sampleConv is one conversation of testdata/airline-100.jsonl with its ground-truth
// label, which only the quality measurement reads — never the analyzer.
type sampleConv struct {
	conv    transcript.Conversation
	success bool
}

// loadSample reads the sample export with its labels, for scoring only.
func loadSample(t testing.TB) []sampleConv {
	t.Helper()
	var out []sampleConv
	for _, l := range transcripttest.LabelledSample(t) {
		out = append(out, sampleConv{conv: l.Conversation, success: l.Success})
	}
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
