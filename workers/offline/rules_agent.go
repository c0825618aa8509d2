package offline

import (
	"fmt"

	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/risk"
	"github.com/checkup-dev/checkup/workers/transcript"
)

// handoffTurn returns the turn where the conversation was passed to a person — a
// handoff tool call (confidence 0.95) or the assistant saying it is transferring the
// user now (0.7; an offer such as "would you like me to transfer you?" is not a
// handoff) — and 0 when it was not.
func (a *Analyzer) handoffTurn(v *view) (int, analyzer.Evidence, float64) {
	for _, c := range v.calls {
		if c.handoff {
			return c.turn, quoteCall(c), 0.95
		}
	}
	for turn := 1; turn <= len(v.conv.Messages); turn++ {
		if v.role(turn) != transcript.RoleAssistant {
			continue
		}
		if m, ok := a.m.handoffText.Find(v.fold(turn)); ok {
			return turn, v.quoteMatch(turn, m), 0.7
		}
	}
	return 0, analyzer.Evidence{}, 0
}

// handoff reports a transfer to a human, with the user's request for one as evidence
// when there was one, and a request for a human that was never honoured. A handoff
// after failed tool calls is the agent giving up (severity 3); one after the agent
// declined the request is an out-of-scope request passed on as designed (severity 1);
// any other is severity 2.
func (a *Analyzer) handoff(v *view) []analyzer.Finding {
	asked := v.flagsOf(risk.KindHumanRequest)
	turn, ev, confidence := a.handoffTurn(v)
	if turn == 0 {
		if len(asked) == 0 {
			return nil
		}
		desc := fmt.Sprintf("At turn %d the user asks for a person (%s), but the conversation is never handed off.",
			asked[0].Turn, quoted(asked[0].Quote))
		return []analyzer.Finding{ruleHumanIgnored.finding(desc, 0, v.quoteFlag(asked[0]))}
	}
	evidence := []analyzer.Evidence{ev}
	desc := fmt.Sprintf("The agent hands the conversation to a human at turn %d.", turn)
	if len(asked) > 0 {
		evidence = append(evidence, v.quoteFlag(asked[0]))
		desc += fmt.Sprintf(" The user had asked for one at turn %d: %s.", asked[0].Turn, quoted(asked[0].Quote))
	}
	f := ruleHandoff.finding(desc, confidence, evidence...)
	failed, refused := 0, false
	for _, c := range v.calls {
		if c.failed && c.resultTurn < turn {
			failed++
		}
	}
	for _, r := range v.flagsOf(risk.KindRefusal) {
		refused = refused || r.Turn < turn
	}
	switch {
	case failed > 0:
		f.Severity = 3
		f.Description += fmt.Sprintf(" %d of its tool calls had failed before: the agent gave up.", failed)
	case refused:
		f.Severity = 1
		f.Description += " The agent had declined the request first: an out-of-scope request passed on as intended."
	}
	f.PriorityScore = priority(f.Severity, f.Confidence)
	return []analyzer.Finding{f}
}

// refusals reports the agent declining requests ("I'm unable to", "无法为您"). Many
// refusals are policy working as intended; the cluster tells the PM how often users
// ask for something the agent cannot do.
func (a *Analyzer) refusals(v *view) []analyzer.Finding {
	flags := v.flagsOf(risk.KindRefusal)
	if len(flags) == 0 {
		return nil
	}
	desc := fmt.Sprintf("The agent declines at turn %d: %s.", flags[0].Turn, quoted(flags[0].Quote))
	if len(flags) > 1 {
		desc += fmt.Sprintf(" It declines %d times in this conversation.", len(flags))
	}
	var ev []analyzer.Evidence
	for _, f := range flags[:min(len(flags), 3)] {
		ev = append(ev, v.quoteFlag(f))
	}
	return []analyzer.Finding{ruleRefusal.finding(desc, 0, ev...)}
}

// knowledgeGaps reports the agent saying it does not know or cannot find something
// ("I don't have information", "我不清楚").
func (a *Analyzer) knowledgeGaps(v *view) []analyzer.Finding {
	for turn := 1; turn <= len(v.conv.Messages); turn++ {
		if v.role(turn) != transcript.RoleAssistant {
			continue
		}
		if m, ok := a.m.knowledgeGap.Find(v.fold(turn)); ok {
			ev := v.quoteMatch(turn, m)
			desc := fmt.Sprintf("At turn %d the agent lacks the information to answer: %s.", turn, quoted(ev.Quote))
			return []analyzer.Finding{ruleKnowledgeGap.finding(desc, 0, ev)}
		}
	}
	return nil
}
