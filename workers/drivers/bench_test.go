package drivers

import (
	"testing"

	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
)

// BenchmarkExtractSample lists the features of the airline sample's conversations, as
// diagnosis does for every labelled conversation.
//
//	go test ./workers/drivers -run '^$' -bench ExtractSample
func BenchmarkExtractSample(b *testing.B) {
	convs := transcripttest.Sample(b)
	for b.Loop() {
		for i, c := range convs {
			Extract(i+1, i%2 == 0, c, nil, nil)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(convs)), "µs/conversation")
}

// BenchmarkSearchSample counts the airline sample's features, as the search does for
// every labelled conversation whose diagnosis is stored.
//
//	go test ./workers/drivers -run '^$' -bench SearchSample
func BenchmarkSearchSample(b *testing.B) {
	var convs []Conversation
	for i, c := range transcripttest.Sample(b) {
		convs = append(convs, Extract(i+1, i%2 == 0, c, nil, nil))
	}
	for b.Loop() {
		s := New()
		for _, c := range convs {
			s.Add(c)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(convs)), "µs/conversation")
}
