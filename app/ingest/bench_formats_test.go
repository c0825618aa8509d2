package ingest_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/app/ingest/ingesttest"
	"github.com/checkup-dev/checkup/db/transcript"
)

// sampleCopies returns n conversations: the sample again and again, each copy with ids
// of its own.
func sampleCopies(b *testing.B, n int) []transcript.Conversation {
	b.Helper()
	orig, _ := mustParse(b, readSample(b))
	out := make([]transcript.Conversation, 0, n)
	for i := 0; len(out) < n; i++ {
		for _, c := range orig {
			if len(out) == n {
				break
			}
			c.ID = fmt.Sprintf("r%d-%s", i, c.ID)
			out = append(out, c)
		}
	}
	return out
}

// BenchmarkParseFormats parses the same 300 conversations written in every format and
// reports the rate in MB/s of the file and in conversations/s. The trace formats are
// much larger for the same conversations, since every model call records the history so
// far:
//
//	go test ./app/ingest -run '^$' -bench ParseFormats -benchmem
func BenchmarkParseFormats(b *testing.B) {
	convs := sampleCopies(b, 300)
	formats := []struct {
		name  string
		write func() []byte
	}{
		{"openai-jsonl", func() []byte { return ingesttest.OpenAIJSONL(b, convs) }},
		{"openai-json", func() []byte { return writeJSONArray(b, convs) }},
		{"sharegpt-jsonl", func() []byte { return writeShareGPT(b, convs, true) }},
		{"csv", func() []byte { return writeCSV(b, convs) }},
		{"anthropic-jsonl", func() []byte { return ingesttest.Anthropic(b, convs, true) }},
		{"otlp-json gen_ai text", func() []byte { return ingesttest.OTLP(b, convs, ingesttest.GenAIText, false, 0) }},
		{"otlp-jsonl gen_ai structured", func() []byte { return ingesttest.OTLP(b, convs, ingesttest.GenAIStructured, true, 50) }},
		{"otlp-jsonl openinference", func() []byte { return ingesttest.OTLP(b, convs, ingesttest.OpenInference, true, 200) }},
		{"otlp-jsonl openllmetry", func() []byte { return ingesttest.OTLP(b, convs, ingesttest.OpenLLMetry, true, 200) }},
		{"otlp-jsonl gen_ai events", func() []byte { return ingesttest.OTLP(b, convs, ingesttest.GenAIEvents, true, 200) }},
		{"langfuse-jsonl", func() []byte { return ingesttest.LangfuseTraces(b, convs) }},
		{"langsmith-jsonl", func() []byte { return ingesttest.LangSmith(b, convs) }},
	}
	for _, f := range formats {
		b.Run(f.name, func(b *testing.B) {
			data := f.write()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				sum, err := ingest.Parse(bytes.NewReader(data), ingest.Limits{}, nil)
				require.NoError(b, err)
				require.Equal(b, len(convs), sum.Conversations)
				n += sum.Conversations
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "conversations/s")
			b.ReportMetric(float64(len(data))/(1<<20), "file-MB")
		})
	}
}
