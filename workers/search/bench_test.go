package search_test

import (
	"testing"

	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
	"github.com/checkup-dev/checkup/workers/search"
)

// BenchmarkIndexerSample indexes the airline sample's 100 conversations, as the
// quality pass does on each of its goroutines; MB/s is over the conversations' text.
//
//	go test ./workers/search -run '^$' -bench IndexerSample
func BenchmarkIndexerSample(b *testing.B) {
	convs := transcripttest.Sample(b)
	size := 0
	for _, c := range convs {
		for _, m := range c.Messages {
			size += len(m.Content)
		}
	}
	b.SetBytes(int64(size))
	x := search.NewIndexer()
	terms := 0
	for b.Loop() {
		for _, c := range convs {
			terms += len(x.Terms(c))
		}
	}
	b.ReportMetric(float64(terms)/float64(b.N*len(convs)), "terms/conversation")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(convs)), "µs/conversation")
}
