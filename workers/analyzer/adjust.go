package analyzer

import (
	"fmt"
	"strconv"
	"strings"
)

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

// String says what was changed in one sentence for the task's owner, or "" when
// nothing was.
func (a Adjustments) String() string {
	var parts []string
	if a.OmittedTurns > 0 {
		parts = append(parts, fmt.Sprintf("%s of its %s turns, in the middle, were left out of the model's prompt, which is capped at LLM_MAX_PROMPT_CHARS characters",
			count(a.OmittedTurns), count(a.TotalTurns)))
	}
	if a.CutPolicyChars > 0 {
		parts = append(parts, fmt.Sprintf("%s characters of the agent's policy (its system prompt) were left out of the prompt", count(a.CutPolicyChars)))
	}
	if a.RemovedNULs > 0 {
		parts = append(parts, fmt.Sprintf("%s U+0000 characters, which cannot be stored, were removed from the model's answer", count(a.RemovedNULs)))
	}
	if a.DroppedFindings > 0 {
		parts = append(parts, fmt.Sprintf("%s findings beyond the first %d were dropped", count(a.DroppedFindings), MaxFindings))
	}
	if a.DroppedEvidence > 0 {
		parts = append(parts, fmt.Sprintf("%s evidence quotes beyond %d per finding were dropped", count(a.DroppedEvidence), MaxEvidence))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "."
}

// count writes n with thousands separators, as the pages do.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
