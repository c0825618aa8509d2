package textmatch

import (
	"testing"

	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
)

// BenchmarkFoldStringSample folds every message and tool call of the airline sample:
// the search terms, the risk screening, the offline rules and the failure drivers each
// fold what they read.
//
//	go test ./workers/textmatch -run '^$' -bench FoldStringSample
func BenchmarkFoldStringSample(b *testing.B) {
	texts := sampleTexts(b)
	for b.Loop() {
		for _, t := range texts {
			FoldString(t)
		}
	}
}

// BenchmarkAppendFoldSample appends the same texts folded to one buffer, as the quality
// checks' content hash does.
//
//	go test ./workers/textmatch -run '^$' -bench AppendFoldSample
func BenchmarkAppendFoldSample(b *testing.B) {
	texts := sampleTexts(b)
	var buf []byte
	for b.Loop() {
		buf = buf[:0]
		for _, t := range texts {
			buf = AppendFold(buf, t)
		}
	}
}

// sampleTexts is every message and tool call of the airline sample, their size set as
// the benchmark's bytes.
func sampleTexts(b *testing.B) []string {
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
	return texts
}
