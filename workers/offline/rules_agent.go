package offline

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/risk"
	"github.com/checkup-dev/checkup/workers/textmatch"
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
// when there was one, and a request for a human that was never honoured. A handoff the
// policy calls for — the policy says when to transfer, and the agent had said it cannot
// do what was asked, or names that sentence's case — is expected behaviour, reported
// apart with the sentence. Any other handoff after failed tool calls is the agent giving
// up (severity 3); one after the agent declined the request is an out-of-scope request
// passed on (severity 1); any other is severity 2.
func (a *Analyzer) handoff(v *view) []analyzer.Finding {
	asked := v.flagsOf(risk.KindHumanRequest)
	turn, ev, confidence := a.handoffTurn(v)
	if turn == 0 {
		if len(asked) == 0 {
			return nil
		}
		desc := locale.Msg("finding.human_ignored", "Turn", digits(asked[0].Turn), "Quote", v.quotedAt(asked[0].Turn, asked[0].Quote))
		return []analyzer.Finding{ruleHumanIgnored.finding(v, desc, 0, v.quoteFlag(asked[0]))}
	}
	declined := slices.ContainsFunc(v.declines, func(d decline) bool { return d.turn < turn })
	if rule, ok := v.handoffRule(turn, declined); ok {
		desc := locale.Msg("finding.expected_handoff", "Turn", digits(turn), "Policy", quotedRule(rule.text))
		f := ruleExpectedHandoff.finding(v, desc, confidence, ev)
		f.Expected, f.Policy = true, rule.text
		return []analyzer.Finding{f}
	}
	evidence := []analyzer.Evidence{ev}
	desc := []locale.Text{locale.Msg("finding.handoff", "Turn", digits(turn))}
	if len(asked) > 0 {
		evidence = append(evidence, v.quoteFlag(asked[0]))
		desc = append(desc, locale.Msg("finding.handoff_asked", "Turn", digits(asked[0].Turn), "Quote", v.quotedAt(asked[0].Turn, asked[0].Quote)))
	}
	failed := 0
	for _, c := range v.calls {
		if c.failed && c.resultTurn < turn {
			failed++
		}
	}
	severity := ruleHandoff.spec().severity
	switch {
	case failed > 0:
		severity = 3
		desc = append(desc, locale.Msg("finding.handoff_gave_up", "N", digits(failed)))
	case declined:
		severity = 1
		desc = append(desc, locale.Msg("finding.handoff_declined"))
	}
	f := ruleHandoff.finding(v, locale.Sentences(desc...), confidence, evidence...)
	f.Severity = severity
	f.PriorityScore = priority(f.Severity, f.Confidence)
	return []analyzer.Finding{f}
}

// handoffRule returns the policy sentence a handoff at turn follows: the policy's rule on
// transfers, when the agent had declined the request before (the policy's "cannot be
// handled" case), or a rule on transfers that the handoff's own reason (its arguments)
// and the user's request name.
func (v *view) handoffRule(turn int, declined bool) (policyRule, bool) {
	if declined {
		return v.policy.first(transfers)
	}
	var texts []string
	for _, tc := range v.msg(turn).ToolCalls {
		texts = append(texts, tc.Arguments)
	}
	for t := turn - 1; t >= 1; t-- {
		if v.role(t) == transcript.RoleUser {
			texts = append(texts, v.msg(t).Content)
			break
		}
	}
	return v.policy.match(transfers, v.stems, texts...)
}

// findDeclines lists the assistant turns that turn a request down ("I'm unable to",
// "this fare cannot be changed", "无法为您"), each with the restriction of the policy it
// follows, found by the terms the declining sentence shares with the policy's sentences
// (policy.match).
func (a *Analyzer) findDeclines(v *view) []decline {
	refused := map[int]risk.Flag{}
	for _, f := range v.flagsOf(risk.KindRefusal) {
		refused[f.Turn] = f
	}
	var out []decline
	for turn := 1; turn <= len(v.conv.Messages); turn++ {
		if v.role(turn) != transcript.RoleAssistant {
			continue
		}
		m, ok := a.firstDecline(v.fold(turn))
		if f, flagged := refused[turn]; flagged && !ok {
			if i := strings.Index(v.msg(turn).Content, f.Quote); i >= 0 {
				m, ok = textmatch.Match{Start: i, End: i + len(f.Quote)}, true
			}
		}
		if !ok {
			continue
		}
		d := decline{turn: turn, match: m}
		// The sentence that declines names what is declined; the rest of the reply and
		// the user's words speak of much else.
		content := v.msg(turn).Content
		said := content[sentenceStart(content, m.Start):sentenceEnd(content, m.End)]
		d.rule, d.byRule = v.policy.match(restricts, v.stems, said)
		out = append(out, d)
	}
	return out
}

// firstDecline finds the first decline of an assistant's text that is not in a
// condition: "If you're unable to provide this information, check your email" asks the
// user for something; it turns nothing down.
func (a *Analyzer) firstDecline(f textmatch.Folded) (textmatch.Match, bool) {
	for m := range a.m.decline.All(f) {
		if !a.conditional(f.Orig, m.Start) {
			return m, true
		}
	}
	return textmatch.Match{}, false
}

// conditional reports whether the clause of text that holds pos opens with a
// condition (markers.condition): what it says of the agent or the user is a case, not
// a statement. The clause starts after the last mark that ends a sentence or a clause
// before pos.
func (a *Analyzer) conditional(text string, pos int) bool {
	start := 0
	if i := strings.LastIndexAny(text[:pos], ".!?;:,\n。！？；，、"); i >= 0 {
		_, size := utf8.DecodeRuneInString(text[i:])
		start = i + size
	}
	m, ok := a.m.condition.Find(textmatch.Fold(strings.TrimSpace(text[start:pos])))
	return ok && m.Start == 0
}

// refusals reports the agent declining requests. A refusal the policy calls for is
// expected behaviour: it is reported apart, with the policy sentence it follows, and
// counts neither towards the conversation's severity nor its failure score. Refusals no
// sentence of the policy calls for are a finding: the cluster tells the PM how often
// users ask for something the agent will not do.
func (a *Analyzer) refusals(v *view) []analyzer.Finding {
	var byRule, other []decline
	for _, d := range v.declines {
		if d.byRule {
			byRule = append(byRule, d)
		} else if len(v.flagsOf(risk.KindRefusal)) > 0 && v.refusalFlagged(d.turn) {
			other = append(other, d)
		}
	}
	var out []analyzer.Finding
	if len(byRule) > 0 {
		d := byRule[0]
		ev := v.quoteMatch(d.turn, d.match)
		desc := locale.Msg("finding.expected_refusal", "Turn", digits(d.turn), "Quote", v.quotedAt(ev.Turn, ev.Quote), "Policy", quotedRule(d.rule.text))
		f := ruleExpectedRefusal.finding(v, desc, 0, ev)
		f.Expected, f.Policy = true, d.rule.text
		out = append(out, f)
	}
	if len(other) > 0 {
		d := other[0]
		ev := v.quoteMatch(d.turn, d.match)
		desc := []locale.Text{locale.Msg("finding.refusal", "Turn", digits(d.turn), "Quote", v.quotedAt(ev.Turn, ev.Quote))}
		if len(other) > 1 {
			desc = append(desc, locale.Msg("finding.refusal_times", "N", digits(len(other))))
		}
		if len(v.policy.rules) > 0 {
			desc = append(desc, locale.Msg("finding.refusal_no_rule"))
		}
		evidence := []analyzer.Evidence{ev}
		for _, o := range other[1:min(len(other), 3)] {
			evidence = append(evidence, v.quoteMatch(o.turn, o.match))
		}
		out = append(out, ruleRefusal.finding(v, locale.Sentences(desc...), 0, evidence...))
	}
	return out
}

// refusalFlagged reports whether risk screening flagged a turn as a refusal: a turn
// that only says "unfortunately" is a decline the policy may explain, not a refusal
// worth a finding of its own.
func (v *view) refusalFlagged(turn int) bool {
	for _, f := range v.flagsOf(risk.KindRefusal) {
		if f.Turn == turn {
			return true
		}
	}
	return false
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
			desc := locale.Msg("finding.knowledge_gap", "Turn", digits(turn), "Quote", v.quotedAt(ev.Turn, ev.Quote))
			return []analyzer.Finding{ruleKnowledgeGap.finding(v, desc, 0, ev)}
		}
	}
	return nil
}
