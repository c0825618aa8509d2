package analyzer_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

func TestAdjustmentsSayWhatChanged(t *testing.T) {
	t.Parallel()
	require.False(t, analyzer.Adjustments{TotalTurns: 40}.Any(), "a conversation's length is no change")
	require.Empty(t, analyzer.Adjustments{TotalTurns: 40}.String())

	a := analyzer.Adjustments{OmittedTurns: 1985, TotalTurns: 2001}.Add(analyzer.Adjustments{RemovedNULs: 2, DroppedEvidence: 4})
	require.True(t, a.Any())
	require.Equal(t, "1,985 of its 2,001 turns, in the middle, were left out of the model's prompt, which is capped at LLM_MAX_PROMPT_CHARS characters; "+
		"2 U+0000 characters, which cannot be stored, were removed from the model's answer; "+
		"4 evidence quotes beyond 3 per finding were dropped.", a.String())
}
