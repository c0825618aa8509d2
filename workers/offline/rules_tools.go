package offline

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// toolErrors reports the failed tool calls of a conversation in one finding. Which
// one says whose fix it is: when an error reads as the tool breaking (a timeout, an
// internal error: toolFault) the tool returned an error; otherwise every error is the
// tool turning the call itself down (an amount that does not add up, a record not
// found, an order in the wrong state), which the agent's instructions fix, not the
// tool. Its severity says what the failure cost, as clearly as the transcript shows
// it: 1 when the agent recovered from every failure (recovers), or when its one failed
// call asked for what was not to be had ("not enough seats") and the agent said so; 2
// when a failure was not made good; 3 when that one was a write the agent never told
// the user had failed (a change the user asked for that silently did not happen). A
// failed write the agent owned up to may be the tool's rules working.
func (a *Analyzer) toolErrors(v *view) []analyzer.Finding {
	var failed []call
	unrecovered, owned := 0, false
	var lost *call          // the first failed write never made good and never told
	var partial locale.Text // how the first write made good by giving part of it up went
	for i, c := range v.calls {
		if !c.failed {
			continue
		}
		failed = append(failed, c)
		j := slices.IndexFunc(v.calls[i+1:], func(d call) bool { return recovers(c, d) })
		if j >= 0 && c.write && partial.IsZero() {
			partial = leftOutOf(c, v.calls[i+1+j])
		}
		if j < 0 {
			unrecovered++
			if c.write {
				told := a.toldFailure(v, c)
				if !told && lost == nil {
					lost = &v.calls[i]
				}
				owned = owned || told
			}
		}
	}
	if len(failed) == 0 {
		return nil
	}
	var parts []locale.Text
	var ev []analyzer.Evidence
	for i, c := range failed {
		if i < 3 {
			parts = append(parts, locale.Msg("finding.failed_call", "Tool", c.name, "Turn", digits(c.resultTurn), "Quote", quoted(c.errQuote)))
			ev = append(ev, quoteResult(c))
		}
	}
	if len(failed) > len(parts) {
		parts[len(parts)-1] = locale.Msg("finding.failed_calls_more", "Last", parts[len(parts)-1], "N", digits(len(failed)-len(parts)))
	}
	// The first failure shown whole: what the call asked — when its arguments are too
	// long to quote, the one its error speaks of ("payment amount does not add up":
	// the payment methods) — before its error, and what the agent told the user after.
	ev = append([]analyzer.Evidence{quoteRejected(failed[0], failed[0].errQuote)}, ev...)
	if reply := v.nextReply(failed[0].resultTurn + 1); reply > 0 {
		ev = append(ev, v.quoteTurn(reply))
	}
	desc := []locale.Text{locale.Msg("finding.tool_calls_failed",
		"Calls", countOf(len(failed), len(v.calls), "finding.of_tool_calls"), "Parts", locale.Join("join.semicolon", parts...))}
	knownText, read, known := v.knownUnavailable(failed)
	severity := 2
	switch {
	case lost != nil:
		severity = 3
		never := "finding.change_never_made"
		if v.nextReply(lost.resultTurn+1) == 0 {
			never = "finding.change_never_made_end"
		}
		desc = append(desc, locale.Msg(never, "Tool", lost.name, "Turn", digits(lost.turn)))
	case unrecovered > 0:
		if len(failed) == 1 {
			// A later call of it would have failed too (another failure) or made it good.
			desc = append(desc, locale.Msg("finding.not_tried_again"))
		} else {
			desc = append(desc, locale.Msg("finding.never_succeeded", "Calls", countOf(unrecovered, len(failed), "finding.of_failed_calls")))
		}
		switch {
		case owned && len(failed) == 1 && a.m.unavailable.Contains(textmatch.Fold(failed[0].errQuote)) && !known:
			// One call for what was not to be had (no seats left), told: the world, not
			// a rule the agent broke.
			severity = 1
			desc = append(desc, locale.Msg("finding.unavailable_told"))
		case owned:
			desc = append(desc, locale.Msg("finding.told_failure"))
		}
	case !partial.IsZero():
		desc = append(desc, partial)
	default:
		severity = 1
		desc = append(desc, locale.Msg("finding.recovered"))
	}
	if known {
		desc = append(desc, knownText)
		ev = append(ev, read)
	}
	for _, c := range failed {
		if text, status, ok := v.ownChange(c); ok {
			desc = append(desc, text)
			ev = append(ev, status)
			break
		}
	}
	rule := ruleToolRejected
	if slices.ContainsFunc(failed, func(c call) bool { return a.m.toolFault.Contains(textmatch.Fold(c.errQuote)) }) {
		rule = ruleToolError
	}
	f := rule.finding(v, v.fit(desc...), 0, ev...)
	f.Severity = severity
	f.PriorityScore = priority(f.Severity, f.Confidence)
	return []analyzer.Finding{f}
}

// recovers reports whether a later call d makes up for failed call c: the same tool
// succeeded, or, for a look-up, another look-up of the same kind did (find_user_by_email
// failed, find_user_by_name_zip found the user: the agent found another way).
func recovers(c, d call) bool {
	if d.failed || d.resultTurn == 0 {
		return false
	}
	return d.name == c.name || (!c.write && !d.write && firstWord(d.name) == firstWord(c.name))
}

// leftOutOf says how a write that made good failed write c did so by leaving part of
// it out (a flight of the list the failed call held): no recovery, the request given
// up in part. Zero when d dropped nothing, or only a way to pay (see paysWith).
func leftOutOf(c, d call) locale.Text {
	key, _, _ := changedArgument(c.args, d.args)
	dropped := leftOut(c.args, d.args, key)
	if key == "" || len(dropped) == 0 || paysWith(key) {
		return locale.Text{}
	}
	return locale.Msg("finding.recovered_leaving_out", "Tool", d.name, "Turn", digits(d.turn), "Key", key, "Items", quotedItems(dropped))
}

// paysWith reports whether an argument says how the user pays (payment_methods,
// payment_id): dropping one of them changes how a request is paid, not what it asks.
func paysWith(key string) bool {
	k := strings.ToLower(key)
	return strings.Contains(k, "pay")
}

// toldFailure reports whether the agent's next words to the user after c's result
// admit a problem ("unfortunately", "is currently unavailable", "抱歉", "失败"), say
// it cannot be done ("the system doesn't allow…", "不支持") or state the rule it ran
// into ("exchanges can only be processed for delivered orders", "只能").
func (a *Analyzer) toldFailure(v *view, c call) bool {
	if c.resultTurn == 0 {
		return false
	}
	reply := v.nextReply(c.resultTurn + 1)
	if reply == 0 {
		return false
	}
	said := v.fold(reply)
	return a.m.failureAck.Contains(said) || a.m.decline.Contains(said) || a.m.limit.Contains(said)
}

// countOf says "1 of 9 tool calls" or "3 of 9 tool calls" by message id, whose plural
// form is of's.
func countOf(n, of int, id string) locale.Text {
	return locale.Msg(id, "N", digits(n), "Count", of)
}

// digits is a whole number written as it is, without grouping: a turn's number, or a
// count a sentence quotes.
func digits(n int) locale.Text { return locale.Lit(strconv.Itoa(n)) }

// retriedFailures reports a tool call repeated with the same arguments after it had
// failed: the agent is looping instead of changing course. A retry after something
// changed is no loop: a change went through in between (the state the call failed on
// may have moved), or the user asked to try again.
func (a *Analyzer) retriedFailures(v *view) []analyzer.Finding {
	for i, c := range v.calls {
		if !c.failed {
			continue
		}
		for j, d := range v.calls[i+1:] {
			if d.name == c.name && sameArgs(d.args, c.args) && !a.changedSince(v, c, v.calls[i+1:i+1+j], d) {
				desc := locale.Msg("finding.retried", "Tool", c.name, "Turn", digits(c.resultTurn), "Quote", quoted(c.errQuote), "Again", digits(d.turn))
				// The error, then both calls by their arguments: the same, twice.
				return []analyzer.Finding{ruleRetryFailing.finding(v, desc, 0, quoteResult(c), quoteRejected(d, c.errQuote), quoteRejected(c, c.errQuote))}
			}
		}
	}
	return nil
}

// changedSince reports whether something changed between failed call c and its retry d:
// one of the calls between (between) was a write that succeeded, or a user turn asked to
// try again ("try again", "再试一次").
func (a *Analyzer) changedSince(v *view, c call, between []call, d call) bool {
	if slices.ContainsFunc(between, func(b call) bool { return b.write && !b.failed && b.resultTurn > 0 }) {
		return true
	}
	for turn := c.resultTurn + 1; turn < d.turn; turn++ {
		if v.role(turn) == transcript.RoleUser && a.m.tryAgain.Contains(v.fold(turn)) {
			return true
		}
	}
	return false
}

// repeatedCalls reports a lookup the agent had already made and that had answered: the
// same tool with the same arguments again (repeatOf). The agent has lost track of what
// it knows, which costs turns and often precedes a wrong answer.
func (a *Analyzer) repeatedCalls(v *view) []analyzer.Finding {
	for i, d := range v.calls {
		if j := v.repeatOf(i); j >= 0 {
			c := v.calls[j]
			desc := locale.Msg("finding.repeated_call", "Tool", c.name, "Turn", digits(d.turn), "Earlier", digits(c.turn))
			return []analyzer.Finding{ruleRepeatedCall.finding(v, desc, 0, quoteArgs(d), quoteArgs(c))}
		}
	}
	return nil
}

// repeatOf is the index of the last earlier lookup call i asks again for nothing —
// the same tool and arguments, which had answered — or -1. Writes and failed calls are
// left to the rules on confirmation and retries, and a think tool reads nothing.
// Reading again is right after a change (rereads) and before changing what was read
// (checksBeforeWrite): the state may have moved since.
func (v *view) repeatOf(i int) int {
	d := v.calls[i]
	if d.write || d.handoff || d.failed || d.thought {
		return -1
	}
	for j := i - 1; j >= 0; j-- {
		c := v.calls[j]
		if c.name != d.name || !sameArgs(c.args, d.args) || c.failed || c.resultTurn == 0 {
			continue
		}
		if rereads(v.calls[j+1:i]) || checksBeforeWrite(d, v.calls[i+1:]) {
			return -1
		}
		return j
	}
	return -1
}

// rereads reports whether a write succeeded among the calls between two lookups, so
// the second reads what may have changed.
func rereads(between []call) bool {
	return slices.ContainsFunc(between, func(e call) bool { return e.write && !e.failed })
}

// checksBeforeWrite reports whether the next write after lookup d changes what d read:
// it names one of d's argument values (the order, the reservation).
func checksBeforeWrite(d call, after []call) bool {
	i := slices.IndexFunc(after, func(e call) bool { return e.write })
	if i < 0 {
		return false
	}
	names := argumentValues(after[i].args)
	return slices.ContainsFunc(argumentValues(d.args), func(s string) bool { return slices.Contains(names, s) })
}

// quoteRejected quotes a call by the argument its error names ("payment method
// certificate_7504069 not found": "certificate_7504069"; "payment amount does not add
// up": its payment argument), the proof that a retry asked again for what was refused,
// when its arguments are too long to quote whole; else as quoteArgs.
func quoteRejected(c call, errQuote string) analyzer.Evidence {
	if utf8.RuneCountInString(strings.TrimSpace(c.args)) <= maxQuote {
		return quoteArgs(c)
	}
	named := ""
	for _, value := range argumentValues(c.args) {
		quotedValue, _ := json.Marshal(value)
		// The longest value named wins (then the first in order), whatever order the
		// arguments are read in.
		if strings.Contains(errQuote, value) && strings.Contains(c.args, string(quotedValue)) &&
			(len(quotedValue) > len(named) || len(quotedValue) == len(named) && string(quotedValue) < named) {
			named = string(quotedValue)
		}
	}
	if named != "" {
		return analyzer.Evidence{Turn: c.turn, Quote: withKey(c.args, named)}
	}
	if text := argumentNamed(c.args, errQuote); text != "" {
		return analyzer.Evidence{Turn: c.turn, Quote: text}
	}
	return quoteArgs(c)
}

// withKey is a quoted value with the key it is written under in args
// (`"payment_id":"certificate_7504069"`), so the reader sees which argument was refused;
// the value alone when args writes it under no key.
func withKey(args, quotedValue string) string {
	at := strings.Index(args, quotedValue)
	colon := strings.LastIndex(strings.TrimRight(args[:at], " \t\n"), ":")
	if colon < 0 || strings.TrimSpace(args[colon+1:at]) != "" {
		return quotedValue
	}
	keyEnd := strings.LastIndex(strings.TrimRight(args[:colon], " \t\n"), `"`)
	if keyEnd < 0 {
		return quotedValue
	}
	keyStart := strings.LastIndex(args[:keyEnd], `"`)
	if keyStart < 0 || strings.ContainsAny(args[keyStart+1:keyEnd], `"{}[],:`) {
		return quotedValue
	}
	return args[keyStart : at+len(quotedValue)]
}

// argumentNamed is the argument, `"key": value` as args writes it, whose key the error
// speaks of most ("payment amount does not add up": "payment_methods"), its head when
// it is too long to quote whole; "" when the error names no key.
func argumentNamed(args, errQuote string) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) != nil {
		return ""
	}
	said := strings.ToLower(errQuote)
	best, bestSaid := "", 0
	for _, key := range keysInOrder(args) {
		// The key most said of wins: "payment amount" speaks of payment_methods more
		// than "total price" of total_baggages.
		n := 0
		for _, part := range strings.Split(strings.ToLower(key), "_") {
			if utf8.RuneCountInString(part) >= 4 && strings.Contains(said, part) {
				n += utf8.RuneCountInString(part)
			}
		}
		if n <= bestSaid {
			continue
		}
		if text := argumentText(args, key, obj[key]); text != "" {
			best, bestSaid = headOf(text), n
		}
	}
	return best
}

// headOf is an argument's text cut to maxQuote runes before a comma, so it stays an
// exact substring of the call that ends on a whole value; whole when short.
func headOf(text string) string {
	if utf8.RuneCountInString(text) <= maxQuote {
		return text
	}
	cut := text[:len(string([]rune(text)[:maxQuote]))]
	if i := strings.LastIndex(cut, ","); i > 0 {
		return cut[:i]
	}
	return cut
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
			desc := locale.Msg("finding.false_success", "Tool", c.name, "Turn", digits(c.resultTurn), "Quote", quoted(c.errQuote), "Claim", digits(turn))
			return []analyzer.Finding{ruleFalseSuccess.finding(v, desc, 0, quoteResult(c), v.quoteMatch(turn, claim))}
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
// shortened to 80 runes with an ellipsis where it was cut (the evidence carries the
// full quote). A piece of a tool call that opens with its own JSON quote
// (`"cabin": "business"`) stays as written, not “"cabin": "business"”.
func quoted(s string) string {
	clip := textmatch.ClipText(s, 80)
	if strings.HasPrefix(clip, `"`) {
		return clip
	}
	return "“" + clip + "”"
}

// quotedRule quotes a policy sentence: a rule often says what it asks for last ("…,
// you have to list the action detail and obtain explicit user confirmation"), so it
// is quoted at a quote's length, not a mention's.
func quotedRule(s string) string {
	// Its own stop goes: the sentence quoting it ends with one ("The policy: “…”.").
	return "“" + strings.TrimRight(textmatch.ClipText(s, maxQuote), ".。") + "”"
}
