package llm_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/llm"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
)

// TestTheModelIsAskedToWriteInTheTasksLanguage: a task written in Chinese asks the
// model for its diagnosis's and its Actions' words in Chinese, with the quotes kept as
// the conversation wrote them; an English task's prompts say nothing of a language.
func TestTheModelIsAskedToWriteInTheTasksLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t, func(req llmtest.Request, _ int) llmtest.Reply { return llmtest.Misspelled(req) }, llm.Config{})
	zh := analyzer.WithLanguage(context.Background(), locale.Chinese)

	_, err := b.a.Diagnose(zh, readSample(t)[0])
	require.NoError(t, err)
	_, err = b.a.WriteAction(zh, brief())
	require.NoError(t, err)
	_, err = b.a.Diagnose(context.Background(), readSample(t)[0])
	require.NoError(t, err)
	_, err = b.a.WriteAction(analyzer.WithLanguage(context.Background(), locale.English), brief())
	require.NoError(t, err)

	reqs := b.srv.Requests()
	require.Len(t, reqs, 4)
	require.Contains(t, reqs[0].System(), "Write the summary and every title and description in Simplified Chinese (简体中文)")
	require.Contains(t, reqs[0].System(), "Copy the evidence quotes and policy sentences exactly as the conversation and the policy wrote them")
	require.Contains(t, reqs[1].System(), "Write the title, problem, recommendation and expectedImpact in Simplified Chinese (简体中文)")
	require.Contains(t, reqs[1].System(), "Quote the conversations exactly as they were written")
	for _, req := range reqs[2:] {
		require.NotContains(t, req.System(), "Simplified Chinese")
		require.NotContains(t, req.System(), "whatever language")
	}
}
