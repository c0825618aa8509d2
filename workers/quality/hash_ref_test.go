package quality

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// refFoldedTrimmed folds with the plain FoldString, which textmatch checks against its
// reference implementation.
func refFoldedTrimmed(s string) string { return strings.TrimSpace(textmatch.FoldString(s)) }

// refContentHash is contentHash written plainly.
func refContentHash(conv transcript.Conversation) [sha256.Size]byte {
	h := sha256.New()
	for _, m := range conv.Messages {
		if m.Role == transcript.RoleSystem {
			continue
		}
		h.Write([]byte(string(m.Role) + "\x1f" + refFoldedTrimmed(m.Content)))
		for _, tc := range m.ToolCalls {
			h.Write([]byte("\x1e" + tc.Name + "\x1f"))
			var compact bytes.Buffer
			if json.Compact(&compact, []byte(tc.Arguments)) != nil {
				compact.Reset()
				compact.WriteString(refFoldedTrimmed(tc.Arguments))
			}
			h.Write(compact.Bytes())
		}
		h.Write([]byte{0x1d})
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

func TestContentHashAgreesWithReference(t *testing.T) {
	t.Parallel()
	_, convs := transcripttest.TextCorpus(t)
	for _, c := range convs {
		require.Equal(t, refContentHash(c), contentHash(c))
	}
}
