package analyzer

import "slices"

// FailedThreshold is the failure score at and above which a conversation's estimated
// outcome is failed.
const FailedThreshold = 0.5

// EstimatedFailed reports whether a diagnosis estimates that the conversation failed.
func (d Diagnosis) EstimatedFailed() bool { return d.FailureScore >= FailedThreshold }

// MaxSeverity is the highest severity of a diagnosis' findings that are not expected
// behaviour, 0 when it has none: what the conversation's severity is.
func MaxSeverity(d Diagnosis) int {
	m := 0
	for _, f := range d.Findings {
		if !f.Expected {
			m = max(m, f.Severity)
		}
	}
	return m
}

// CitedTurns lists the distinct turns a diagnosis points the reader at, ascending: the
// evidence of its findings that are not expected behaviour, and the turn where things
// went wrong.
func CitedTurns(d Diagnosis) []int {
	var turns []int
	if d.FailedTurn > 0 {
		turns = append(turns, d.FailedTurn)
	}
	for _, f := range d.Findings {
		if f.Expected {
			continue
		}
		for _, e := range f.Evidence {
			turns = append(turns, e.Turn)
		}
	}
	slices.Sort(turns)
	return slices.Compact(turns)
}
