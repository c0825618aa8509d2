package quality

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
)

func named(id string, msgs ...transcript.Message) transcript.Conversation {
	return transcript.Conversation{ID: id, Messages: msgs}
}

func TestCheckQualityFunnel(t *testing.T) {
	t.Parallel()
	sys := transcript.Message{Role: transcript.RoleSystem, Content: "You are a helpful airline agent."}
	otherSys := transcript.Message{Role: transcript.RoleSystem, Content: "A different prompt."}
	convs := []transcript.Conversation{
		named("ok1", sys, user("Change my flight"), assistant("Sure, which one?")),
		named("dup", otherSys, user("  change   MY flight "), assistant("Sure, which one?")),
		named("ok2", sys, user("Change my flight"), call("c1", "get_reservation", `{"id": "X1"}`), tool("c1", "{}"), assistant("Done")),
		named("dup-args", sys, user("Change my flight"), call("c9", "get_reservation", `{"id":"X1"}`), tool("c9", "{}"), assistant("done")),
		named("orphan", sys, user("hi"), assistant("hello"), tool("nope", "result")),
		named("unknown-role", sys, transcript.Message{Role: "bot", Content: "x"}, user("hi"), assistant("hello")),
		named("bad-args", sys, user("hi"), call("c1", "f", "{not json"), tool("c1", "x"), assistant("ok")),
		named("no-user", sys, assistant("Hello?")),
		named("no-assistant", sys, user("Hello?"), user("Anyone?")),
		named("", sys, user("Change my flight"), assistant("Sure, which one?"), user("The one on Friday")),
		named("", sys, user("Change my flight"), assistant("Sure, which one?"), user("the one on friday")),
	}
	verdicts, funnel := Check(convs, Options{})

	want := []struct {
		status Status
		reason string
	}{
		{Kept, ""},
		{Duplicate, "duplicate of ok1"},
		{Kept, ""},
		{Duplicate, "duplicate of ok2"},
		{Malformed, `the tool result at turn 4 answers tool call "nope", which no earlier turn made`},
		{Malformed, `turn 2 has the unknown role "bot"`},
		{Malformed, "1 of 1 tool calls have arguments that are not valid JSON"},
		{Empty, "the conversation has no user message"},
		{Empty, "the conversation has no agent message"},
		{Kept, ""},
		{Duplicate, "duplicate of conversation #10"},
	}
	require.Len(t, verdicts, len(want))
	for i, w := range want {
		require.Equal(t, w.status, verdicts[i].Status, "conversation %d", i)
		require.Equal(t, w.reason, verdicts[i].Reason, "conversation %d", i)
		require.Len(t, verdicts[i].ContentHash, 32)
	}
	require.Equal(t, verdicts[0].ContentHash, verdicts[1].ContentHash, "system prompts do not count")
	require.NotEqual(t, verdicts[0].ContentHash, verdicts[2].ContentHash)

	require.Equal(t, 11, funnel.Uploaded())
	require.Equal(t, 3, funnel.Kept())
	raw, err := json.Marshal(funnel)
	require.NoError(t, err)
	require.JSONEq(t, `{"steps": [
		{"step": "uploaded", "label": "Uploaded", "removed": 0, "remaining": 11},
		{"step": "malformed", "label": "Malformed", "removed": 3, "remaining": 8, "reasons": [
			{"reason": {"id": "quality.invalid_arguments"}, "count": 1},
			{"reason": {"id": "quality.unknown_call"}, "count": 1},
			{"reason": {"id": "quality.unknown_role"}, "count": 1}]},
		{"step": "empty", "label": "Empty", "removed": 2, "remaining": 6, "reasons": [
			{"reason": {"id": "quality.no_assistant"}, "count": 1},
			{"reason": {"id": "quality.no_user"}, "count": 1}]},
		{"step": "too_short", "label": "Too short", "removed": 0, "remaining": 6},
		{"step": "duplicate", "label": "Duplicate", "removed": 3, "remaining": 3, "reasons": [
			{"reason": {"id": "quality.duplicate"}, "count": 3}]},
		{"step": "kept", "label": "Kept", "removed": 0, "remaining": 3}
	]}`, string(raw))
}

func TestCheckQualityTooShortAndThresholds(t *testing.T) {
	t.Parallel()
	short := named("s", user("hi"), assistant("hello"))
	v, f := Check([]transcript.Conversation{short}, Options{MinTurns: 3})
	require.Equal(t, TooShort, v[0].Status)
	require.Equal(t, "only 2 user or agent turns (minimum 3)", v[0].Reason)
	require.Equal(t, 0, f.Kept())

	// One bad call of three is the agent's mistake, kept for diagnosis.
	mixed := named("m", user("hi"),
		call("a", "f", "{oops"), tool("a", "x"),
		call("b", "f", `{}`), tool("b", "x"),
		call("c", "f", ""), tool("c", "x"),
		assistant("done"))
	v, _ = Check([]transcript.Conversation{mixed}, Options{})
	require.Equal(t, Kept, v[0].Status)

	// Exports without tool_call_id are accepted once a tool call was made.
	noIDs := named("n", user("hi"), call("", "f", `{}`), tool("", "x"), assistant("done"))
	v, _ = Check([]transcript.Conversation{noIDs}, Options{})
	require.Equal(t, Kept, v[0].Status)
}

func TestCheckerStreamsLikeBatch(t *testing.T) {
	t.Parallel()
	convs := transcripttest.Sample(t)
	batch, funnel := Check(convs, Options{})
	q := NewChecker(Options{})
	for i, c := range convs {
		require.Equal(t, batch[i], q.Check(c))
	}
	require.Equal(t, funnel, q.Funnel())
	// The sample shares one system prompt and has no duplicates: all 100 are kept.
	require.Equal(t, 100, funnel.Kept())
}
