package report_test

import (
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/locale/localetest"

	"encoding/json"
	"testing"
	"time"

	"github.com/checkup-dev/checkup/workers/cluster"
	"github.com/checkup-dev/checkup/workers/quality"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/pipeline"
)

// TestReadsThePipelinesStoredShapes guards the contract between the pipeline, which
// stores JSON on the task and cluster rows, and the report, which reads it back with
// types of its own so report.json's schema cannot change by accident.
func TestReadsThePipelinesStoredShapes(t *testing.T) {
	t.Parallel()
	raw := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return b
	}
	cfg := pipeline.TaskConfig{Analyzer: analyzer.Info{Name: "llm", Label: "LLM analysis", Model: "gpt-x", PromptVersion: "p3"},
		DiagnosisConcurrency: 3, ActionConcurrency: 2, MaxDiagnosed: 500, MinConversations: 5}
	funnel := quality.Funnel{Steps: []quality.FunnelStep{
		{Step: "uploaded", Label: "Uploaded", Remaining: 10},
		{Step: "empty", Label: "Empty", Removed: 2, Remaining: 8, Reasons: []quality.FunnelReason{{Reason: locale.Msg("quality.no_user"), Count: 2}}},
		{Step: "kept", Label: "Kept", Remaining: 8},
	}}
	risk := pipeline.RiskSummary{Screened: 8, Flagged: 1, Selected: 8, Kinds: []pipeline.RiskKindSummary{
		{Kind: "refusal", Conversations: 1, Flags: 2, Examples: []pipeline.RiskExample{{ConversationID: "c1", Seq: 1, Turn: 3, Quote: "I can't"}}}}}
	parts := cluster.PriorityParts{Prevalence: 0.25, PrevalenceTerm: 10, Severity: 3, SeverityTerm: 24, Confidence: 0.5, ConfidenceTerm: 10, Formula: "f"}
	rank := int32(1)
	rows := store.ReportRows{
		Task: dbsqlc.AnalysisTask{Status: "completed", Config: raw(cfg), Funnel: raw(funnel), RiskSummary: raw(risk)},
		Actions: []dbsqlc.ListTaskActionsRow{{Status: "done", Rank: &rank, ClusterType: "ACTION",
			Action: raw(analyzer.Action{Title: "t", Recommendation: []string{"a"}}), PriorityParts: raw(parts)}},
	}
	r, err := report.Build(rows, time.Now(), localetest.English(t))
	require.NoError(t, err)

	require.Equal(t, report.Analysis{Analyzer: "llm", Label: "LLM analysis", Model: "gpt-x", PromptVersion: "p3",
		DiagnosisConcurrency: 3, ActionConcurrency: 2, MaxDiagnosed: 500, MinConversations: 5}, r.Analysis)
	require.Len(t, r.Funnel, 3)
	require.Equal(t, report.FunnelStep{Step: "empty", Label: "Empty", Removed: 2, Remaining: 8,
		Reasons: []report.FunnelReason{{Reason: "no user message", Count: 2}}}, r.Funnel[1])
	require.Equal(t, 10, r.Population.Uploaded)
	require.Equal(t, 8, r.Population.Kept)
	require.Equal(t, &report.RiskSummary{Screened: 8, Flagged: 1, Selected: 8, Kinds: []report.RiskKind{
		{Kind: "refusal", Conversations: 1, Flags: 2, Examples: []report.RiskExample{{ConversationID: "c1", Seq: 1, Turn: 3, Quote: "I can't"}}}}}, r.RiskSummary)
	require.Equal(t, report.PriorityParts{Prevalence: 0.25, PrevalenceTerm: 10, Severity: 3, SeverityTerm: 24,
		Confidence: 0.5, ConfidenceTerm: 10, Formula: "f"}, r.Actions[0].PriorityParts)
}
