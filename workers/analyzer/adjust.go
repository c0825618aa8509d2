package analyzer

import "github.com/checkup-dev/checkup/db/locale"

// Adjustments counts what an analyzer changed so that a unit fits its limits and can be
// stored: parts of the input the model was not shown and parts of the answer that were
// removed. The pipeline shows the counts of each unit to the task's owner as a warning
// on that unit, so nothing is cut silently.
type Adjustments struct {
	// OmittedTurns is the number of transcript turns left out of the prompt to keep it
	// under its cap, of TotalTurns.
	OmittedTurns, TotalTurns int
	// CutPolicyChars is the number of characters of the agent's policy (its system
	// prompt) left out of the prompt.
	CutPolicyChars int
	// RemovedNULs is the number of U+0000 characters removed from the answer: text
	// that PostgreSQL cannot store.
	RemovedNULs int
	// DroppedFindings and DroppedEvidence count the findings, and the evidence items of
	// the kept findings, beyond the most an answer may give.
	DroppedFindings, DroppedEvidence int
}

// Add returns the sum of a and o; TotalTurns is kept from whichever knows it.
func (a Adjustments) Add(o Adjustments) Adjustments {
	return Adjustments{
		OmittedTurns:    a.OmittedTurns + o.OmittedTurns,
		TotalTurns:      max(a.TotalTurns, o.TotalTurns),
		CutPolicyChars:  a.CutPolicyChars + o.CutPolicyChars,
		RemovedNULs:     a.RemovedNULs + o.RemovedNULs,
		DroppedFindings: a.DroppedFindings + o.DroppedFindings,
		DroppedEvidence: a.DroppedEvidence + o.DroppedEvidence,
	}
}

// Any reports whether anything was changed; the total of turns alone is not a change.
func (a Adjustments) Any() bool {
	a.TotalTurns = 0
	return a != Adjustments{}
}

// Text says what was changed in one sentence for the task's owner, or is zero when
// nothing was.
func (a Adjustments) Text() locale.Text {
	var parts []locale.Text
	if a.OmittedTurns > 0 {
		parts = append(parts, locale.Msg("adjusted.omitted_turns", "Omitted", a.OmittedTurns, "Total", a.TotalTurns))
	}
	if a.CutPolicyChars > 0 {
		parts = append(parts, locale.Msg("adjusted.cut_policy", "N", a.CutPolicyChars))
	}
	if a.RemovedNULs > 0 {
		parts = append(parts, locale.Msg("adjusted.removed_nuls", "N", a.RemovedNULs))
	}
	if a.DroppedFindings > 0 {
		parts = append(parts, locale.Msg("adjusted.dropped_findings", "N", a.DroppedFindings, "Max", MaxFindings))
	}
	if a.DroppedEvidence > 0 {
		parts = append(parts, locale.Msg("adjusted.dropped_evidence", "N", a.DroppedEvidence, "Max", MaxEvidence))
	}
	if len(parts) == 0 {
		return locale.Text{}
	}
	return locale.Msg("adjusted.sentence", "Parts", locale.Join("join.semicolon", parts...))
}
