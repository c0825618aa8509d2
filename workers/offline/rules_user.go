package offline

import (
	"slices"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// frustration reports user turns with frustration markers ("this is ridiculous",
// "going in circles", "太慢了", "没用"); confidence rises to 0.85 when it happens twice.
// Only what the user says after the agent's first answer (firstAnswer) counts:
// frustration the user brings to the conversation ("I'm so frustrated about my delayed
// flight") is the reason for contact, not the agent's doing. Nor does frustration at a
// decline the policy calls for ("What the hell? Refund it as I said!" after "refunds go
// to the original payment method"): that is the policy's cost, which the expected
// refusal reports with the rule it follows, not something the agent failed to do.
func (a *Analyzer) frustration(v *view) []analyzer.Finding {
	answer := v.firstAnswer()
	if answer == 0 {
		return nil
	}
	var ev []analyzer.Evidence
	for turn := answer + 1; turn <= len(v.conv.Messages); turn++ {
		if v.role(turn) != transcript.RoleUser {
			continue
		}
		if v.declinedByRule(v.replyBefore(turn)) {
			continue
		}
		if m, ok := a.m.frustration.Find(v.fold(turn)); ok {
			ev = append(ev, v.quoteMatch(turn, m))
		}
	}
	if len(ev) == 0 {
		return nil
	}
	desc := locale.Msg("finding.frustrated", "Turn", digits(ev[0].Turn), "Quote", v.quotedAt(ev[0].Turn, ev[0].Quote))
	confidence := 0.0
	if len(ev) > 1 {
		desc = locale.Sentences(desc, locale.Msg("finding.frustrated_times", "N", digits(len(ev))))
		confidence = 0.85
	}
	// The user's words, what the agent said that they answer so, the next times.
	quotes := append(v.withReplyBefore(ev[0].Turn, ev[0]), ev[1:min(len(ev), 3)]...)
	return []analyzer.Finding{ruleFrustration.finding(v, desc, confidence, quotes...)}
}

// longConversation reports a conversation of more than Options.LongTurns non-system
// turns (a user's consecutive messages are one turn, see view.turns) whose turns
// visibly went nowhere, the evidence being where: tool calls that failed or asked
// again (wastedCalls), else the agent repeating itself, else the user restating their
// request (with the request). A long conversation whose every turn moved it on (a user
// with five orders to look up) has nothing to shorten to show; its length still
// weighs in the failure score (lengthRisk), as long conversations fail more often.
func (a *Analyzer) longConversation(v *view) []analyzer.Finding {
	n, joined := v.turns()
	if n <= a.opt.LongTurns {
		return nil
	}
	// n leaves the system prompt out; the turns are numbered with it, so say so.
	var besides []locale.Text
	if n+joined < len(v.conv.Messages) {
		besides = append(besides, locale.Msg("finding.long_besides_system"))
	}
	if joined > 0 {
		besides = append(besides, locale.Msg("finding.long_joined"))
	}
	long := locale.Msg("finding.long", "N", digits(n), "Besides", locale.Join("join.concat", besides...),
		"Calls", digits(len(v.calls)), "Max", digits(a.opt.LongTurns))
	found := func(where locale.Text, ev ...analyzer.Evidence) []analyzer.Finding {
		return []analyzer.Finding{ruleLong.finding(v, locale.Sentences(long, where), 0, ev...)}
	}
	if where, ev := v.wastedCalls(); len(ev) > 0 {
		return found(where, ev...)
	}
	if earlier, later, _ := v.agentRepeat(); later > 0 {
		return found(locale.Msg("finding.long_agent_repeats", "Turn", digits(later), "Earlier", digits(earlier)), v.quoteTurn(earlier), v.quoteTurn(later))
	}
	for turn := 1; turn <= len(v.conv.Messages); turn++ {
		if v.role(turn) != transcript.RoleUser {
			continue
		}
		if m, ok := a.m.restate.Find(v.fold(turn)); ok {
			ev := []analyzer.Evidence{v.quoteMatch(turn, m)}
			if opening := v.firstUserTurn(); opening > 0 && opening < turn {
				ev = append([]analyzer.Evidence{v.quoteTurn(opening)}, ev...)
			}
			return found(locale.Msg("finding.long_user_restates", "Turn", digits(turn)), ev...)
		}
	}
	return nil
}

// lengthRisk is what a conversation's length alone says of its failing, for the
// failure score: as much as a long_conversation finding would (its rule's severity
// and confidence, one severity less after a decline the policy calls for, as
// softenAfterPolicy does), when the conversation is long without one; else 0.
func (a *Analyzer) lengthRisk(v *view, findings []analyzer.Finding) float64 {
	if n, _ := v.turns(); n <= a.opt.LongTurns || slices.ContainsFunc(findings, func(f analyzer.Finding) bool { return f.Category == "long_conversation" }) {
		return 0
	}
	s := ruleLong.spec()
	severity := s.severity
	if slices.ContainsFunc(v.declines, func(d decline) bool { return d.byRule }) {
		severity--
	}
	return s.confidence * failureWeight(severity)
}

// minWasted is how many calls must have gone nowhere before a long conversation's
// evidence is them: one failed call is a hiccup, two are turns spent for nothing —
// and at least a quarter of its calls (wastedShare): two failures among sixteen calls
// are hiccups in a conversation long because of the work it asked for.
const (
	minWasted   = 2
	wastedShare = 4
)

// wastedCalls are the tool calls that did not move the conversation on: the failed ones
// (shown by their error) and those asking again what an earlier call had already
// answered (repeatOf; shown with the earlier call, the same twice), in order and up to
// maxStretch turns; what they were, said; none when fewer than minWasted or than a
// wastedShare-th of the calls.
func (v *view) wastedCalls() (locale.Text, []analyzer.Evidence) {
	var ev []analyzer.Evidence
	failed, repeated := 0, 0
	for i, c := range v.calls {
		if c.failed && c.resultTurn > 0 && c.errQuote != "" {
			failed++
			ev = append(ev, quoteResult(c))
			continue
		}
		j := v.repeatOf(i)
		if j < 0 {
			continue
		}
		repeated++
		if !slices.ContainsFunc(ev, func(e analyzer.Evidence) bool { return e.Turn == v.calls[j].turn }) {
			ev = append(ev, quoteArgs(v.calls[j]))
		}
		ev = append(ev, quoteArgs(c))
	}
	if n := failed + repeated; n < minWasted || n*wastedShare < len(v.calls) {
		return locale.Text{}, nil
	}
	slices.SortStableFunc(ev, func(a, b analyzer.Evidence) int { return a.Turn - b.Turn })
	var parts []locale.Text
	if failed > 0 {
		parts = append(parts, locale.Msg("finding.long_wasted_failed", "N", digits(failed)))
	}
	if repeated > 0 {
		parts = append(parts, locale.Msg("finding.long_wasted_repeated", "N", digits(repeated)))
	}
	what := locale.Msg("finding.long_wasted", "N", digits(failed+repeated), "Calls", digits(len(v.calls)), "Parts", locale.List(parts...))
	return what, ev[:min(len(ev), maxStretch)]
}

// maxStretch is how many turns of wasted calls a long conversation's evidence shows,
// the first ones: few enough to read, enough to see the run.
const maxStretch = 5

// firstUserTurn is the user's first turn in words, 0 when there is none.
func (v *view) firstUserTurn() int {
	for turn := 1; turn <= len(v.conv.Messages); turn++ {
		if v.role(turn) == transcript.RoleUser && v.hasText(turn) {
			return turn
		}
	}
	return 0
}

// firstAnswer is the turn of the agent's first answer to the user, 0 when it never
// answers: its first message in words after its first look-up, when it looks
// something up before its second message in words (an agent with tools first asks who
// the user is, then answers); otherwise its first message in words after the user's
// first. A greeting before the user spoke answers nothing.
func (v *view) firstAnswer() int {
	userSpoke, texts, lookedUp := false, 0, false
	first := 0 // the first message in words after the user's first
	for turn := 1; turn <= len(v.conv.Messages); turn++ {
		switch m := v.msg(turn); {
		case m.Role == transcript.RoleUser && v.hasText(turn):
			userSpoke = true
		case m.Role == transcript.RoleAssistant && userSpoke:
			if v.hasText(turn) {
				if lookedUp && len(m.ToolCalls) == 0 {
					return turn
				}
				texts++
				if first == 0 {
					first = turn
				}
			}
			if len(m.ToolCalls) > 0 && texts < 2 {
				lookedUp = true
			}
			if texts >= 2 && !lookedUp {
				return first
			}
		}
	}
	return first
}

// declinedByRule reports whether the agent's turn declines what a sentence of the
// policy calls for declining.
func (v *view) declinedByRule(turn int) bool {
	return turn > 0 && slices.ContainsFunc(v.declines, func(d decline) bool { return d.turn == turn && d.byRule })
}
