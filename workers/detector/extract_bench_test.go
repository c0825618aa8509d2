package detector

import (
	"testing"

	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
)

// BenchmarkExtract times reading one conversation's features, over the airline sample.
//
//	go test ./workers/detector -run '^$' -bench Extract
func BenchmarkExtract(b *testing.B) {
	convs := transcripttest.Sample(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		c := convs[i%len(convs)]
		Extract(c, nil, nil, 0)
		TakeFingerprint(c)
	}
}
