package analyzer_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// TestAdjustmentsSayWhatChanged: the sentence in English, as it is stored, and in
// Chinese for a reader who chose it.
func TestAdjustmentsSayWhatChanged(t *testing.T) {
	t.Parallel()
	require.False(t, analyzer.Adjustments{TotalTurns: 40}.Any(), "a conversation's length is no change")
	require.True(t, analyzer.Adjustments{TotalTurns: 40}.Text().IsZero())

	a := analyzer.Adjustments{OmittedTurns: 1985, TotalTurns: 2001}.Add(analyzer.Adjustments{RemovedNULs: 2, DroppedEvidence: 4})
	require.True(t, a.Any())
	require.Equal(t, "1,985 of its 2,001 turns, in the middle, were left out of the model's prompt, which is capped at LLM_MAX_PROMPT_CHARS characters; "+
		"2 U+0000 characters, which cannot be stored, were removed from the model's answer; "+
		"4 evidence quotes beyond 3 per finding were dropped.", localetest.English(t).Text(a.Text()))
	require.Equal(t, "它的 2,001 轮中，中间的 1,985 轮没有放进模型的提示词，提示词上限为 LLM_MAX_PROMPT_CHARS 个字符；"+
		"从模型的回答中删除了 2 个无法存储的 U+0000 字符；每个发现 3 条之外的 4 条证据引文被舍弃。", localetest.Chinese(t).Text(a.Text()))
}
