package ingest_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/db/transcript"
)

// repeatSample builds about size bytes of JSONL from the sample, giving each copy its
// own conversation ids.
func repeatSample(b *testing.B, size int) []byte {
	b.Helper()
	sample := readSample(b)
	var buf bytes.Buffer
	for i := 0; buf.Len() < size; i++ {
		prefix := fmt.Appendf(nil, `"conversation_id": "r%d-`, i)
		buf.Write(bytes.ReplaceAll(sample, []byte(`"conversation_id": "`), prefix))
	}
	return buf.Bytes()
}

// BenchmarkParseJSONL measures parsing throughput on about 20 MB of the sample:
//
//	go test ./app/ingest -run=^$ -bench=ParseJSONL -benchmem
func BenchmarkParseJSONL(b *testing.B) {
	data := repeatSample(b, 20<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		_, err := ingest.Parse(bytes.NewReader(data), ingest.Limits{}, func(transcript.Conversation) error {
			n++
			return nil
		})
		require.NoError(b, err)
		require.Positive(b, n)
	}
}

// BenchmarkParseJSONLGzip is BenchmarkParseJSONL with the upload gzip-compressed;
// throughput is per decompressed byte.
func BenchmarkParseJSONLGzip(b *testing.B) {
	data := repeatSample(b, 20<<20)
	compressed := gzipped(b, data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		_, err := ingest.Parse(bytes.NewReader(compressed), ingest.Limits{}, func(transcript.Conversation) error { return nil })
		require.NoError(b, err)
	}
}

// BenchmarkParseJSONArray measures the token-streaming JSON document reader on the same
// conversations written as a pretty-printed array.
func BenchmarkParseJSONArray(b *testing.B) {
	convs, _ := mustParse(b, repeatSample(b, 20<<20))
	data := writeJSONArray(b, convs)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		_, err := ingest.Parse(bytes.NewReader(data), ingest.Limits{}, func(transcript.Conversation) error { return nil })
		require.NoError(b, err)
	}
}

// BenchmarkParseCSV measures the CSV reader, which groups and sorts every row, on the
// same conversations written one message per row.
func BenchmarkParseCSV(b *testing.B) {
	convs, _ := mustParse(b, repeatSample(b, 20<<20))
	data := writeCSV(b, convs)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		_, err := ingest.Parse(bytes.NewReader(data), ingest.Limits{}, func(transcript.Conversation) error { return nil })
		require.NoError(b, err)
	}
}
