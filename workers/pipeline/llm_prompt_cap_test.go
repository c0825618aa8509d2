package pipeline_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/pipeline"
)

// TestLLMLongConversationIsCutAndSaysSo: a conversation of 2,001 messages is
// diagnosed under the prompt cap; the turns left out of its prompt are counted in a
// warning on that conversation, and the others get none.
func TestLLMLongConversationIsCutAndSaysSo(t *testing.T) {
	t.Parallel()
	convs := sample(t)[:9]
	long := transcript.Conversation{ID: "long-one", Messages: []transcript.Message{{Role: transcript.RoleUser, Content: "Please help me."}}}
	for i := range 2000 {
		role := transcript.RoleAssistant
		if i%2 == 1 {
			role = transcript.RoleUser
		}
		long.Messages = append(long.Messages, transcript.Message{Role: role, Content: fmt.Sprintf("turn %d %s", i+2, strings.Repeat("words ", 200))})
	}
	convs = append(convs, long)
	a, srv := llmAnalyzer(t, nil)
	b := setup(t)
	id := b.upload(t, convs)
	task := b.runTask(t, id, a, pipeline.Options{})
	require.EqualValues(t, "completed", task.Status, task.Error)

	var ws []dbsqlc.TaskWarning
	for _, w := range b.warnings(t, id) {
		if w.Stage == taskstate.Diagnosis {
			ws = append(ws, w)
		}
	}
	require.Len(t, ws, 1)
	require.Equal(t, "conversation long-one", ws[0].Scope)
	require.Regexp(t, `^Conversation long-one: [\d,]+ of its 2,001 turns, in the middle, were left out of the model's prompt, which is capped at LLM_MAX_PROMPT_CHARS characters\.$`, ws[0].Message)
	for _, r := range srv.Requests() {
		n := 0
		for _, m := range r.Messages {
			n += len([]rune(m.Content))
		}
		require.LessOrEqual(t, n, 48_000)
	}
}
