package offline

import (
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// Rules that hold the agent to procedures its own policy states. Each fires only when
// the policy says so, and quotes the sentence it holds the agent to.

// unauthenticated reports a tool call made before the user's identity was verified,
// when the policy asks to authenticate the user first. A tool verifies identity when
// its name says so (see isIdentityTool).
func (a *Analyzer) unauthenticated(v *view) []analyzer.Finding {
	rule, ok := v.policy.first(authenticates)
	if !ok {
		return nil
	}
	for _, c := range v.calls {
		if isIdentityTool(c.name) {
			return nil
		}
		if c.handoff || c.thought {
			continue // passing the user on, or thinking, is not acting on their behalf
		}
		desc := []locale.Text{locale.Msg("finding.unauthenticated", "Turn", digits(c.turn), "Tool", c.name, "Policy", quotedRule(rule.text))}
		if gate, ok := v.policy.gate(rule, c.name, v.stems); ok {
			desc = append(desc, locale.Msg("finding.unauthenticated_gate", "Gate", textmatch.EndSentence("“"+textmatch.ClipText(gate.text, maxGateQuote)+"”")))
		}
		if !v.namesTheUsers(c) {
			desc = append(desc, locale.Msg("finding.unauthenticated_no_account", "Tool", c.name))
		}
		// The call, what the user had said before it — the request the agent acted on
		// without knowing who asked — and what the agent then told that user.
		ev := []analyzer.Evidence{quoteCall(c)}
		if asked := v.userBefore(c.turn); asked > 0 {
			ev = append(ev, v.quoteTurn(asked))
		}
		if told := v.nextReply(c.turn + 1); told > 0 {
			ev = append(ev, v.quoteTurn(told))
		}
		return []analyzer.Finding{ruleUnauthenticated.finding(v, v.fit(desc...), 0, ev...)}
	}
	return nil
}

// namesTheUsers reports whether a call's arguments hold something the user gave
// before it (an email, an order id, a name): a look-up of that reads the user's
// account; one of nothing the user said (a catalogue) reads none.
func (v *view) namesTheUsers(c call) bool {
	for _, value := range argumentValues(c.args) {
		value = strings.ToLower(value)
		for t := c.turn - 1; t >= 1; t-- {
			if v.role(t) == transcript.RoleUser && strings.Contains(strings.ToLower(v.msg(t).Content), value) {
				return true
			}
		}
	}
	return false
}

// maxGateQuote is how much of the sentence that makes an act wait for the check is
// quoted: enough to reach what it names (order, product, profile information), which
// is the point of quoting it.
const maxGateQuote = 160

// isIdentityTool recognises a tool that looks up or verifies who the user is:
// authenticate_user, verify_identity, find_user_id_by_email, lookupUser, login.
func isIdentityTool(name string) bool {
	n := strings.ToLower(name)
	for _, k := range []string{"auth", "verif", "identif", "login", "find_user", "lookup_user", "finduser", "lookupuser"} {
		if strings.Contains(n, k) {
			return true
		}
	}
	return false
}

// userBefore is the user's last turn in words before turn, 0 when there is none.
func (v *view) userBefore(turn int) int {
	for t := turn - 1; t >= 1; t-- {
		if v.role(t) == transcript.RoleUser && v.hasText(t) {
			return t
		}
	}
	return 0
}
