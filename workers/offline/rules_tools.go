package offline

import (
	"fmt"
	"strings"

	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/textmatch"
	"github.com/checkup-dev/checkup/workers/transcript"
)

// toolErrors reports the failed tool calls of a conversation in one finding; a failed
// write (a booking, a refund) makes it severity 3.
func (a *Analyzer) toolErrors(v *view) []analyzer.Finding {
	var failed []call
	writes := false
	for _, c := range v.calls {
		if c.failed {
			failed = append(failed, c)
			writes = writes || c.write
		}
	}
	if len(failed) == 0 {
		return nil
	}
	var parts []string
	var ev []analyzer.Evidence
	for i, c := range failed {
		if i < 3 {
			parts = append(parts, fmt.Sprintf("%s at turn %d (%s)", c.name, c.resultTurn, quoted(c.errQuote)))
			ev = append(ev, quoteResult(c))
		}
	}
	desc := fmt.Sprintf("%d of %d tool calls failed: %s.", len(failed), len(v.calls), strings.Join(parts, "; "))
	f := ruleToolError.finding(desc, 0, ev...)
	if writes {
		f.Severity = 3
		f.PriorityScore = priority(f.Severity, f.Confidence)
	}
	return []analyzer.Finding{f}
}

// retriedFailures reports a tool call repeated with the same arguments after it had
// failed: the agent is looping instead of changing course.
func (a *Analyzer) retriedFailures(v *view) []analyzer.Finding {
	for i, c := range v.calls {
		if !c.failed {
			continue
		}
		for _, d := range v.calls[i+1:] {
			if d.name == c.name && sameArgs(d.args, c.args) {
				desc := fmt.Sprintf("%s failed at turn %d (%s) and was called again with the same arguments at turn %d.",
					c.name, c.resultTurn, quoted(c.errQuote), d.turn)
				return []analyzer.Finding{ruleRetryFailing.finding(desc, 0, quoteResult(c), quoteCall(d))}
			}
		}
	}
	return nil
}

// sameArgs compares tool arguments ignoring whitespace, so {"a": 1} equals {"a":1}.
func sameArgs(a, b string) bool {
	return strings.Join(strings.Fields(a), "") == strings.Join(strings.Fields(b), "")
}

// falseSuccess reports an assistant reply that claims success after a tool call failed,
// when no later call of the same tool succeeded before that reply and the reply does
// not mention the problem.
func (a *Analyzer) falseSuccess(v *view) []analyzer.Finding {
	for _, c := range v.calls {
		if !c.failed {
			continue
		}
		for turn := c.resultTurn + 1; turn <= len(v.conv.Messages); turn++ {
			if v.role(turn) == transcript.RoleUser {
				break
			}
			if v.role(turn) == transcript.RoleTool && v.recovered(c, turn) {
				break
			}
			if v.role(turn) != transcript.RoleAssistant || !v.hasText(turn) {
				continue
			}
			f := v.fold(turn)
			claim, ok := a.m.successClaim.Find(f)
			if !ok || a.m.failureAck.Contains(f) {
				break
			}
			desc := fmt.Sprintf("%s failed at turn %d (%s), yet at turn %d the agent told the user it had succeeded.",
				c.name, c.resultTurn, quoted(c.errQuote), turn)
			return []analyzer.Finding{ruleFalseSuccess.finding(desc, 0, quoteResult(c), v.quoteMatch(turn, claim))}
		}
	}
	return nil
}

// recovered reports whether the tool result at turn answers a successful call of the
// same tool as c.
func (v *view) recovered(c call, turn int) bool {
	for _, d := range v.calls {
		if d.resultTurn == turn {
			return d.name == c.name && !d.failed
		}
	}
	return false
}

// quoted puts a quote from the conversation in typographic quotes for a description,
// shortened to 80 runes (the evidence carries the full quote).
func quoted(s string) string {
	c := textmatch.ClipQuote(s, 80)
	if c != strings.TrimSpace(s) {
		c += "…"
	}
	return "“" + c + "”"
}
