package reporttest

import (
	"testing"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

var config = map[string]any{
	"analyzer":              analyzer.Info{Name: "offline", Label: "offline analysis"},
	"diagnosis_concurrency": 2, "action_concurrency": 2, "max_diagnosed": 0, "min_conversations": 5,
}

var funnel = map[string]any{"steps": []map[string]any{
	{"step": "uploaded", "label": "Uploaded", "removed": 0, "remaining": 7},
	{"step": "malformed", "label": "Malformed", "removed": 0, "remaining": 7},
	{"step": "empty", "label": "Empty", "removed": 1, "remaining": 6,
		"reasons": []map[string]any{{"reason": "no agent message", "count": 1}}},
	{"step": "too_short", "label": "Too short", "removed": 0, "remaining": 6},
	{"step": "duplicate", "label": "Duplicate", "removed": 0, "remaining": 6},
	{"step": "kept", "label": "Kept", "removed": 0, "remaining": 6},
}}

var riskSummary = map[string]any{
	"screened": 6, "flagged": 2, "selected": 6,
	"kinds": []map[string]any{{"kind": "personal_data", "conversations": 2, "flags": 2,
		"examples": []map[string]any{{"conversation_id": "conv-1", "seq": 1, "turn": 4, "quote": "**** 4242"}}}},
}

type cluster struct {
	idx             int
	typ, category   string
	title           string
	seqs            []int32
	severity, score float64
}

// clusters: one RISK and two ACTION clusters over conversations 1-5 (6 was isolated).
var clusters = []cluster{
	{0, "RISK", "personal_data", "Card numbers shown to users", []int32{1, 2}, 5, 80},
	{1, "ACTION", "unconfirmed_write", "Bookings changed without confirmation", []int32{2, 3, 4}, 3, 65},
	{2, "ACTION", "user_repeats", "Users repeat themselves", []int32{5}, 2, 30},
}

func parts(c cluster) map[string]any {
	prev := float64(len(c.seqs)) / 5
	return map[string]any{
		"prevalence": prev, "prevalence_term": prev * 40, "severity": c.severity, "severity_term": c.severity * 8,
		"confidence": 0.8, "confidence_term": 16, "formula": "40*prevalence + 8*severity + 20*confidence",
	}
}

func riskFlags(seq int) []map[string]any {
	if seq > 2 {
		return []map[string]any{}
	}
	return []map[string]any{{"kind": "personal_data", "turn": 4, "quote": "**** 4242", "detail": "payment card number"}}
}

// diagnosis is the stored diagnosis; conversation 6 was isolated and has none (NULL).
func diagnosis(tb testing.TB, seq int) []byte {
	if seq == 6 {
		return nil
	}
	return mustJSON(tb, analyzer.Diagnosis{Outcome: "resolved", Summary: "The booking was looked up.", Findings: []analyzer.Finding{}})
}

func diagnosisStatus(seq int) string {
	if seq == 6 {
		return "isolated"
	}
	return "done"
}

func diagnosisPass(seq int) any {
	switch seq {
	case 6:
		return nil
	case 5:
		return "repaired"
	}
	return "first_pass"
}
