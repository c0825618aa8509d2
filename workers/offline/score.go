package offline

import (
	"math"
	"slices"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

// failureWeight is how strongly one finding of a severity speaks for a failed
// conversation at full confidence. The severities are defined by what they cost the
// user: from 3 up the request probably went unmet (a sure severity-3 finding reads as
// failed), 2 is friction the user got past, 1 a remark.
func failureWeight(severity int) float64 {
	switch {
	case severity >= 5:
		return 0.97
	case severity == 4:
		return 0.9
	case severity == 3:
		return 0.75
	case severity == 2:
		return 0.4
	}
	return 0.15
}

// failureScore estimates how likely the conversation failed its user, 0..1, from its
// findings that are not expected behaviour, as if each were independent evidence:
// 1 − Π(1 − confidence × failureWeight(severity)). One severity-3 finding at confidence
// 0.7, or two severity-2 ones at 0.8, reach 0.5, where the estimated outcome becomes
// failed; expected behaviour never raises it.
func failureScore(findings []analyzer.Finding) float64 {
	ok := 1.0
	for _, f := range findings {
		if !f.Expected {
			ok *= 1 - f.Confidence*failureWeight(f.Severity)
		}
	}
	return math.Round((1-ok)*1000) / 1000
}

// failedTurn is where things went wrong. In a conversation estimated failed that changed
// data, it is the last change the agent made — what the conversation left behind — unless
// a finding cites a write; otherwise the earliest turn cited by the most severe finding
// that is not expected behaviour; 0 when there is none.
func failedTurn(v *view, findings []analyzer.Finding, score float64) int {
	if score >= analyzer.FailedThreshold {
		last := 0
		for _, c := range v.calls {
			if c.write {
				last = c.turn
			}
		}
		if last > 0 {
			return last
		}
	}
	return worstTurn(findings)
}

// worstTurn is the earliest turn cited by the most severe finding that is not expected
// behaviour; 0 when there is none.
func worstTurn(findings []analyzer.Finding) int {
	best := -1
	for i, f := range findings {
		if f.Expected || len(f.Evidence) == 0 {
			continue
		}
		if best < 0 || f.Severity > findings[best].Severity {
			best = i
		}
	}
	if best < 0 {
		return 0
	}
	turns := make([]int, 0, len(findings[best].Evidence))
	for _, e := range findings[best].Evidence {
		turns = append(turns, e.Turn)
	}
	return slices.Min(turns)
}
