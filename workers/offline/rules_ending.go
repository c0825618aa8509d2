package offline

import (
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// ending is how a conversation stopped.
type ending int

const (
	endClosed     ending = iota // a normal close, or a handoff
	endUnanswered               // the user was left without a reply
	endAbandoned                // the user left before the request was done
)

// ending classifies the last turns. A conversation handed to a human ends closed (the
// handoff rule covers it). Otherwise it is unanswered when it stops on a tool call or
// result, or on a user message that is not a goodbye; abandoned when the user's last
// two turns give up ("never mind", "算了"; severity 3) or defer ("I'll get back to you",
// "我再考虑"; severity 2, a less clear case: the user may come back) — unless the
// agent had just declined as its policy says, which leaves the user nothing to wait for,
// or the user decides to leave things as they are ("I'll hold off on any changes",
// "保持原样": told what the change takes, the user chose, and nothing was left undone) —
// or when the agent's last message leaves a question open ("Which flight would you
// like?", but not "Anything else?") that the user never answers.
func (a *Analyzer) ending(v *view, handedOff bool) ([]analyzer.Finding, ending) {
	last := v.lastTurn()
	if handedOff || last == 0 {
		return nil, endClosed
	}
	// The user's last two turns: "I'll get back to you once I have the ID." is often
	// followed by a polite "Thank you, you too!".
	for turn, seen := last, 0; turn >= 1 && seen < 2; turn-- {
		if v.role(turn) != transcript.RoleUser || !v.hasText(turn) {
			continue
		}
		seen++
		if a.m.keepAsIs.Contains(v.fold(turn)) {
			return nil, endClosed
		}
		m, gaveUp := a.m.giveUp.Find(v.fold(turn))
		deferred := false
		if !gaveUp {
			m, deferred = a.m.deferring.Find(v.fold(turn))
		}
		if gaveUp || deferred {
			if v.declinedByPolicy(turn) {
				return nil, endClosed // the policy ruled the request out: leaving is what is left
			}
			ev := v.quoteMatch(turn, m)
			if deferred {
				desc := locale.Msg("finding.deferred", "Turn", digits(turn), "Quote", v.quotedAt(ev.Turn, ev.Quote))
				f := ruleAbandoned.finding(v, desc, 0.5, ev)
				f.Severity = 2
				f.PriorityScore = priority(f.Severity, f.Confidence)
				return []analyzer.Finding{f}, endAbandoned
			}
			desc := locale.Msg("finding.gave_up", "Turn", digits(turn), "Quote", v.quotedAt(ev.Turn, ev.Quote))
			return []analyzer.Finding{ruleAbandoned.finding(v, desc, 0, ev)}, endAbandoned
		}
	}
	switch m := v.msg(last); {
	case m.Role == transcript.RoleTool || (m.Role == transcript.RoleAssistant && !v.hasText(last)):
		if len(v.calls) == 0 {
			desc := locale.Msg("finding.stops_on_result", "Turn", digits(last))
			return []analyzer.Finding{ruleUnanswered.finding(v, desc, 0, v.quoteTurn(last))}, endUnanswered
		}
		c := v.calls[len(v.calls)-1]
		desc := locale.Msg("finding.stops_after_call", "Tool", c.name, "Turn", digits(c.turn))
		return []analyzer.Finding{ruleUnanswered.finding(v, desc, 0, quoteCall(c))}, endUnanswered
	case m.Role == transcript.RoleUser:
		if a.signsOff(v.lastUserRun(last)) {
			return nil, endClosed
		}
		desc := locale.Msg("finding.no_reply", "Turn", digits(last))
		return []analyzer.Finding{ruleUnanswered.finding(v, desc, 0, v.quoteTurn(last))}, endUnanswered
	case m.Role == transcript.RoleAssistant:
		tail := lastParagraph(m.Content)
		if strings.ContainsAny(tail, "?？吗") && !a.m.closingAsk.Contains(v.fold(last)) {
			desc := locale.Msg("finding.unanswered_question", "Turn", digits(last))
			return []analyzer.Finding{ruleAbandoned.finding(v, desc, 0.5, analyzer.Evidence{Turn: last, Quote: tail})}, endAbandoned
		}
	}
	return nil, endClosed
}

// declinedByPolicy reports whether the agent's last decline before turn followed a
// sentence of its policy.
func (v *view) declinedByPolicy(turn int) bool {
	for i := len(v.declines) - 1; i >= 0; i-- {
		if d := v.declines[i]; d.turn < turn {
			return d.byRule
		}
	}
	return false
}

// lastUserRun is the text of the user's messages that end the conversation at last,
// consecutive ones joined: in a chat a user sends "好的" and "谢谢" as two messages,
// one turn.
func (v *view) lastUserRun(last int) string {
	first := last
	for first > 1 && (v.role(first-1) == transcript.RoleUser || (v.role(first-1) == transcript.RoleAssistant && !v.hasText(first-1) && len(v.msg(first-1).ToolCalls) == 0)) {
		first--
	}
	var parts []string
	for t := first; t <= last; t++ {
		if v.role(t) == transcript.RoleUser && v.hasText(t) {
			parts = append(parts, strings.TrimSpace(v.msg(t).Content))
		}
	}
	return strings.Join(parts, "\n")
}

// signsOff reports whether the user's closing words end the conversation rather than
// wait for a reply: a thanks or goodbye ("thanks", "that's it", "好的谢谢"), an
// "anything else?" of their own, or a bare acknowledgement ("ok", "got it"), and no
// question besides such a closing one ("Thanks! When is my refund paid?" waits) —
// unless the user then says they need nothing more: a joke or a question they answer
// themselves, then "I'm all set. Cheers!" or "我没事了", waits for nothing.
func (a *Analyzer) signsOff(text string) bool {
	f := textmatch.Fold(text)
	if !a.m.closing.Contains(f) && !a.m.closingAsk.Contains(f) && !acknowledgement(f.Text) {
		return false
	}
	waiting := false
	for start := 0; start < len(text); {
		end := sentenceEnd(text, start)
		if end <= start {
			end = start + 1
		}
		sentence := textmatch.Fold(text[start:end])
		switch {
		case asksUser(text[start:end]) && !a.m.closingAsk.Contains(sentence):
			waiting = true
		case a.m.needNothing.Contains(sentence):
			waiting = false
		}
		start = end
	}
	return !waiting
}

// acknowledgement reports whether a user's last message only acknowledges ("ok",
// "好的", "got it 👍"): short and asking nothing, it closes a chat rather than waits for
// a reply.
func acknowledgement(folded string) bool {
	weight, _ := textWeight(folded)
	return weight <= 12 && !strings.ContainsAny(folded, "?？吗呢")
}

// lastTurn is the last turn that is not a system prompt or an empty user or assistant
// message; 0 when there is none.
func (v *view) lastTurn() int {
	for turn := len(v.conv.Messages); turn >= 1; turn-- {
		m := v.msg(turn)
		switch {
		case m.Role == transcript.RoleSystem:
		case m.Role == transcript.RoleTool, v.hasText(turn), len(m.ToolCalls) > 0:
			return turn
		}
	}
	return 0
}

// lastParagraph is the last non-blank line of s, clipped: where an open question sits.
func lastParagraph(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return textmatch.ClipQuote(lines[len(lines)-1], maxQuote)
}
