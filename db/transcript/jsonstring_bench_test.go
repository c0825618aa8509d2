package transcript_test

import (
	"encoding/json"
	"testing"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
)

// BenchmarkUnquoteJSONSample decodes the string literals of the sample's messages as
// encoding/json writes them (escaped quotes, newlines, <, > and &), as the upload
// parser and the reader of stored transcripts do.
//
//	go test ./db/transcript -run '^$' -bench UnquoteJSONSample
func BenchmarkUnquoteJSONSample(b *testing.B) {
	var lits []string
	size := 0
	for _, c := range transcripttest.Sample(b) {
		for _, m := range c.Messages {
			lit, err := json.Marshal(m.Content)
			if err != nil {
				b.Fatal(err)
			}
			lits = append(lits, string(lit))
			size += len(lit)
		}
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, lit := range lits {
			if _, ok := transcript.UnquoteJSON(lit); !ok {
				b.Fatalf("refused %q", lit)
			}
		}
	}
}
