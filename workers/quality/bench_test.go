package quality

import (
	"testing"

	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
)

// BenchmarkExamineSample examines the airline sample's conversations (the checks and
// the content hash), as the quality pass does for every uploaded conversation.
//
//	go test ./workers/quality -run '^$' -bench ExamineSample
func BenchmarkExamineSample(b *testing.B) {
	convs := transcripttest.Sample(b)
	q := NewChecker(Options{})
	for b.Loop() {
		for _, c := range convs {
			q.Examine(c)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(convs)), "µs/conversation")
}
