package ingest

import (
	"encoding/json"

	"github.com/checkup-dev/checkup/db/transcript"
)

// jsonString decodes a JSON string literal (quotes included) that the decoder has
// already validated, with the one unescaper of stored and uploaded text
// (transcript.UnquoteJSON). Most strings have no escapes and are taken as they are. A
// lone surrogate, which the upload refuses at its line anyway, is left to
// encoding/json, which makes it U+FFFD.
func jsonString(b []byte) string {
	if s, ok := transcript.UnquoteJSON(string(b)); ok {
		return s
	}
	var s string
	_ = json.Unmarshal(b, &s) // b was validated; only a lone surrogate gets here
	return s
}
