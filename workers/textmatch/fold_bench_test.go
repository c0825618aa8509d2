package textmatch

import (
	"testing"

	"github.com/checkup-dev/checkup/workers/transcript/transcripttest"
)

// BenchmarkFoldStringSample folds every message and tool call of the airline sample:
// the search terms, the risk screening, the offline rules and the failure drivers each
// fold what they read.
//
//	go test ./workers/textmatch -run '^$' -bench FoldStringSample
func BenchmarkFoldStringSample(b *testing.B) {
	var texts []string
	size := 0
	for _, c := range transcripttest.Sample(b) {
		for _, m := range c.Messages {
			texts = append(texts, m.Content)
			size += len(m.Content)
			for _, tc := range m.ToolCalls {
				texts = append(texts, tc.Arguments)
				size += len(tc.Arguments)
			}
		}
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, t := range texts {
			FoldString(t)
		}
	}
}
