package offline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// unconfirmedWrite is one write call the user had not explicitly agreed to.
type unconfirmedWrite struct {
	call     call
	lastUser int  // the user's last turn before the call, 0 when none
	retry    bool // the user had confirmed, but an earlier write failed and the agent retried
	failed   call // that earlier write, when retry
	assent   bool // the user's last turn agrees without saying yes ("That works, use PayPal")
}

// writeConsent returns the writes (see isWriteTool) the user had not explicitly agreed
// to. A write is confirmed when a user turn after the agent's last message in words —
// the one that should have described the action — contains an explicit agreement
// ("yes", "go ahead", "确认", "好的") and does not open with a negation ("no", "wait",
// "不"). One confirmation covers the writes that follow it until one fails: a write
// retried after a failure with changed arguments, without going back to the user, is
// unconfirmed too — the user agreed to other details.
func (a *Analyzer) writeConsent(v *view) []unconfirmedWrite {
	var unconfirmed []unconfirmedWrite
	confirmed := false
	lastUser := 0
	var failedWrite *call
	next := 0 // index into v.calls
	for turn := 1; turn <= len(v.conv.Messages); turn++ {
		m := v.msg(turn)
		switch m.Role {
		case transcript.RoleUser:
			lastUser = turn
			if a.confirms(v.fold(turn)) {
				confirmed, failedWrite = true, nil
			}
		case transcript.RoleAssistant:
			for ; next < len(v.calls) && v.calls[next].turn == turn; next++ {
				c := v.calls[next]
				if !c.write {
					continue
				}
				switch {
				case !confirmed:
					assent := lastUser > 0 && a.m.assent.Contains(v.fold(lastUser))
					unconfirmed = append(unconfirmed, unconfirmedWrite{call: c, lastUser: lastUser, assent: assent})
				case failedWrite != nil && !sameArgs(failedWrite.args, c.args):
					unconfirmed = append(unconfirmed, unconfirmedWrite{call: c, lastUser: lastUser, retry: true, failed: *failedWrite})
				}
				if c.failed {
					failedWrite = &v.calls[next]
				}
			}
			if v.hasText(turn) {
				confirmed, failedWrite = false, nil
			}
		}
	}
	return unconfirmed
}

// unconfirmedWrites reports the writes made without an explicit yes (writeConsent):
// severity 4 when the user had not agreed at all or the agent changed the details after a
// failure, 2 when the user's last words agreed without the explicit yes a policy asks
// for ("That works, use PayPal").
func (a *Analyzer) unconfirmedWrites(v *view) []analyzer.Finding {
	found := a.writeConsent(v)
	if len(found) == 0 {
		return nil
	}
	first := found[0]
	var desc string
	if first.retry {
		desc = fmt.Sprintf("After %s failed at turn %d (%s), the agent called %s again at turn %d with changed arguments without asking the user.",
			first.failed.name, first.failed.resultTurn, quoted(first.failed.errQuote), first.call.name, first.call.turn)
	} else {
		desc = fmt.Sprintf("The agent called %s at turn %d without an explicit confirmation from the user since its last message.",
			first.call.name, first.call.turn)
	}
	if first.lastUser > 0 {
		desc += fmt.Sprintf(" The user's last words before it were %s.", quoted(v.msg(first.lastUser).Content))
	}
	if len(found) > 1 {
		names := make([]string, 0, len(found))
		for _, w := range found {
			names = append(names, fmt.Sprintf("%s (turn %d)", w.call.name, w.call.turn))
		}
		desc += fmt.Sprintf(" %d unconfirmed writes in all: %s.", len(found), strings.Join(names, ", "))
	}
	if rule, ok := v.policy.first(confirms); ok {
		desc += fmt.Sprintf(" The policy: %s.", quoted(rule.text))
	}
	ev := []analyzer.Evidence{quoteCall(first.call)}
	if first.lastUser > 0 {
		ev = append(ev, v.quoteTurn(first.lastUser))
	}
	f := ruleUnconfirmedWrite.finding(desc, 0, ev...)
	if !slices.ContainsFunc(found, func(w unconfirmedWrite) bool { return !w.assent || w.retry }) {
		f.Severity, f.Confidence = 2, 0.5
		f.PriorityScore = priority(f.Severity, f.Confidence)
	}
	return []analyzer.Finding{f}
}

// confirms reports whether a user turn explicitly agrees.
func (a *Analyzer) confirms(f textmatch.Folded) bool {
	if _, ok := a.m.confirm.Find(f); !ok {
		return false
	}
	neg, ok := a.m.negation.Find(f)
	return !ok || strings.TrimSpace(f.Orig[:neg.Start]) != ""
}
