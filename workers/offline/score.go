package offline

import (
	"math"
	"slices"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/textmatch"
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
// 1 − Π(1 − confidence × failureWeight(severity)), and from its length where no
// finding says it (lengthRisk, one more such factor). One severity-3 finding at
// confidence 0.7, or two severity-2 ones at 0.8, reach 0.5, where the estimated
// outcome becomes failed; expected behaviour never raises it.
func failureScore(findings []analyzer.Finding, lengthRisk float64) float64 {
	ok := 1 - lengthRisk
	for _, f := range findings {
		if !f.Expected {
			ok *= 1 - f.Confidence*failureWeight(f.Severity)
		}
	}
	return math.Round((1-ok)*1000) / 1000
}

// failedTurn is where things first went wrong. In a conversation with a problem of
// severity 2 or more that changed data, it is the first change the agent made: the
// step that committed the conversation to its outcome. Otherwise it is the earliest
// turn cited by the most severe finding that is not expected behaviour; 0 when there is
// none.
func failedTurn(v *view, findings []analyzer.Finding) int {
	if analyzer.MaxSeverity(analyzer.Diagnosis{Findings: findings}) >= 2 {
		for _, c := range v.calls {
			if c.write && citedFrom(findings, c.turn) {
				return c.turn
			}
		}
	}
	return worstTurn(findings)
}

// citedFrom reports whether a finding of severity 2 or more that is not expected
// behaviour cites turn or a later one: the change at turn is part of what went wrong,
// not a step after a problem that ended earlier (a look-up before the identity check,
// an order changed long after).
func citedFrom(findings []analyzer.Finding, turn int) bool {
	return slices.ContainsFunc(findings, func(f analyzer.Finding) bool {
		return !f.Expected && f.Severity >= 2 && slices.ContainsFunc(f.Evidence, func(e analyzer.Evidence) bool { return e.Turn >= turn })
	})
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

// softenAfterPolicy lowers by one the severity of friction — the user frustrated,
// repeating themselves, the conversation running long, the agent saying the same thing
// again — that follows a refusal the agent's policy calls for: a user pushing against
// the policy is the policy at work, not the agent failing them.
func softenAfterPolicy(v *view, findings []analyzer.Finding) {
	first := 0
	for _, d := range v.declines {
		if d.byRule {
			first = d.turn
			break
		}
	}
	if first == 0 {
		return
	}
	for i, f := range findings {
		switch f.Category {
		case "user_frustration", "user_repeats", "long_conversation":
		case "repetition":
			if f.Title != ruleRepeatedMessage.spec().title {
				continue
			}
		default:
			continue
		}
		if f.Expected || len(f.Evidence) == 0 || f.Evidence[0].Turn < first || f.Severity <= 1 {
			continue
		}
		findings[i].Severity--
		follows := locale.Msg("finding.follows_policy_decline", "Turn", digits(first))
		findings[i].Description = textmatch.ClipText(f.Description+" "+v.en.Text(follows), maxDescription)
		if w := f.Words; w != nil {
			findings[i].Words = &analyzer.Words{Title: w.Title, Description: locale.Sentences(w.Description, follows)}
		}
		findings[i].PriorityScore = priority(findings[i].Severity, f.Confidence)
	}
}

// maxCitedTurns is how many turns a diagnosis points the reader at, at most: enough to
// show where things went wrong, each finding as the exchange that shows it (the user's
// words, the call and what it had before, the tool's result, the agent's reply: up to
// five turns, so the two most severe findings whole), few enough to read.
const maxCitedTurns = 10

// capCitations keeps the turns a diagnosis cites (analyzer.CitedTurns) to
// maxCitedTurns: the failed turn first, then the evidence of findings from the most
// severe down. Evidence at a turn already cited is always kept. A finding none of whose
// turns fits is left without evidence; its description still quotes what happened.
func capCitations(failed int, findings []analyzer.Finding) {
	cited := map[int]bool{}
	if failed > 0 {
		cited[failed] = true
	}
	order := make([]int, 0, len(findings))
	for i, f := range findings {
		if !f.Expected {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return findings[b].Severity - findings[a].Severity })
	for _, i := range order {
		var kept []analyzer.Evidence
		for _, e := range findings[i].Evidence {
			if cited[e.Turn] || len(cited) < maxCitedTurns {
				cited[e.Turn] = true
				kept = append(kept, e)
			}
		}
		if kept == nil {
			kept = []analyzer.Evidence{}
		}
		findings[i].Evidence = kept
	}
}
