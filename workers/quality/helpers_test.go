package quality

import "github.com/checkup-dev/checkup/db/transcript/transcripttest"

// The message builders the tests write conversations with.
var (
	conv      = transcripttest.Conv
	user      = transcripttest.User
	assistant = transcripttest.Assistant
	tool      = transcripttest.Result
	call      = transcripttest.Call
)
