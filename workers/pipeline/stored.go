package pipeline

import "github.com/checkup-dev/checkup/workers/analyzer"

// The JSON shapes the pipeline stores on the task row and the cluster rows. The report
// (report) and the pages read them back, so they are versioned with report.json.

// RiskSummary is stored in analysis_task.risk_summary after screening.
type RiskSummary struct {
	Screened int               `json:"screened"` // conversations screened (the kept population)
	Flagged  int               `json:"flagged"`  // conversations with at least one flag
	Selected int               `json:"selected"` // conversations chosen for diagnosis
	Kinds    []RiskKindSummary `json:"kinds"`    // in risk.Kinds order, kinds with no flag left out
}

// RiskKindSummary counts one kind of flag.
type RiskKindSummary struct {
	Kind          string        `json:"kind"`
	Conversations int           `json:"conversations"` // conversations with this kind
	Flags         int           `json:"flags"`
	Examples      []RiskExample `json:"examples"` // at most three, in conversation order
}

// RiskExample points at one flagged turn.
// CutBefore and CutAfter say the quote was cut out of the turn mid-sentence there.
type RiskExample struct {
	ConversationID string `json:"conversation_id"`
	Seq            int    `json:"seq"`
	Turn           int    `json:"turn"`
	Quote          string `json:"quote"`
	CutBefore      bool   `json:"cut_before,omitempty"`
	CutAfter       bool   `json:"cut_after,omitempty"`
}

// Marked puts an ellipsis beside a rendered quote on each side where it was cut.
func (e RiskExample) Marked(quote string) string {
	if e.CutBefore {
		quote = "…" + quote
	}
	if e.CutAfter {
		quote += "…"
	}
	return quote
}

// TaskConfig is stored in analysis_task.config by the worker when a run starts: which
// analyzer, model and prompt version produced the report, and the limits it ran with.
type TaskConfig struct {
	Analyzer             analyzer.Info `json:"analyzer"`
	DiagnosisConcurrency int           `json:"diagnosis_concurrency"`
	ActionConcurrency    int           `json:"action_concurrency"`
	MaxDiagnosed         int           `json:"max_diagnosed"` // 0 = every kept conversation
	MinConversations     int           `json:"min_conversations"`
}
