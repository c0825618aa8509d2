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
// flight") is the reason for contact, not the agent's doing.
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
// turns (a user's consecutive messages are one turn, see view.turns). The evidence is
// where the turns went, with the user's opening request, so many turns before: when
// tool calls and their results took half of them or more, the request and then the
// calls that went nowhere (wastedCalls), else those of the tool called most
// (busiestTool); else the agent repeating
// itself, else the user restating their request, else the last words of the
// conversation, each followed by the request.
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
	opening := v.firstUserTurn()
	then := func(where locale.Text, ev ...analyzer.Evidence) []analyzer.Finding {
		if opening > 0 && opening != ev[0].Turn {
			ev = append(ev, v.quoteTurn(opening))
		}
		return []analyzer.Finding{ruleLong.finding(v, locale.Sentences(long, where), 0, ev...)}
	}
	if b, ok := v.busiestTool(); ok && 2*b.spent >= n {
		// The request leads, what the user asked for so many turns before; then the
		// calls that went nowhere, where there are some, else the stretch of calls
		// of the tool called most.
		where, ev := v.wastedCalls()
		if len(ev) == 0 {
			where = locale.Msg("finding.long_tools", "Spent", digits(b.spent), "Tool", locale.Lit(b.name),
				"Calls", digits(len(b.calls)), "First", digits(b.calls[0].turn), "Last", digits(b.calls[len(b.calls)-1].turn))
			ev = b.stretch()
		}
		if opening > 0 && opening < ev[0].Turn {
			ev = append([]analyzer.Evidence{v.quoteTurn(opening)}, ev...)
		}
		return []analyzer.Finding{ruleLong.finding(v, locale.Sentences(long, where), 0, ev...)}
	}
	if earlier, later, _ := v.agentRepeat(); later > 0 {
		return then(locale.Msg("finding.long_agent_repeats", "Turn", digits(later), "Earlier", digits(earlier)), v.quoteTurn(later))
	}
	for turn := 1; turn <= len(v.conv.Messages); turn++ {
		if v.role(turn) != transcript.RoleUser {
			continue
		}
		if m, ok := a.m.restate.Find(v.fold(turn)); ok {
			return then(locale.Msg("finding.long_user_restates", "Turn", digits(turn)), v.quoteMatch(turn, m))
		}
	}
	last := v.lastTurn()
	return then(locale.Msg("finding.long_ends", "Turn", digits(last)), v.quoteTurn(v.lastWords(last)))
}

// toolTurns is where a conversation's tool calls went: spent, the turns that only
// call tools or return their results; the tool called most often (on a tie, the one
// that got there first) and its calls, in order.
type toolTurns struct {
	spent int
	name  string
	calls []call
}

// busiestTool is the conversation's toolTurns; false when no tool was called at
// least three times, as then no one tool is where the turns went.
func (v *view) busiestTool() (toolTurns, bool) {
	var b toolTurns
	for turn := 1; turn <= len(v.conv.Messages); turn++ {
		m := v.msg(turn)
		if m.Role == transcript.RoleTool || (m.Role == transcript.RoleAssistant && len(m.ToolCalls) > 0 && !v.hasText(turn)) {
			b.spent++
		}
	}
	counts, most := map[string]int{}, 0
	for _, c := range v.calls {
		counts[c.name]++
		if counts[c.name] > most {
			most, b.name = counts[c.name], c.name
		}
	}
	if most < 3 {
		return b, false
	}
	for _, c := range v.calls {
		if c.name == b.name {
			b.calls = append(b.calls, c)
		}
	}
	return b, true
}

// minWasted is how many calls must have gone nowhere before a long conversation's
// evidence is them: one failed call is a hiccup, two are turns spent for nothing.
const minWasted = 2

// wastedCalls are the tool calls that did not move the conversation on: the failed ones
// (shown by their error) and those asking again what an earlier call had already
// answered, with nothing written between (shown with the earlier call, the same
// twice), in order and up to maxStretch turns; what they were, said; none when
// fewer than minWasted.
func (v *view) wastedCalls() (locale.Text, []analyzer.Evidence) {
	var ev []analyzer.Evidence
	failed, repeated := 0, 0
	for i, c := range v.calls {
		if c.failed && c.resultTurn > 0 && c.errQuote != "" {
			failed++
			ev = append(ev, quoteResult(c))
			continue
		}
		j := slices.IndexFunc(v.calls[:i], func(d call) bool {
			return d.name == c.name && !d.failed && d.resultTurn > 0 && sameArgs(c.args, d.args)
		})
		if c.failed || c.write || j < 0 || rereads(v.calls[j+1:i]) {
			continue
		}
		repeated++
		if !slices.ContainsFunc(ev, func(e analyzer.Evidence) bool { return e.Turn == v.calls[j].turn }) {
			ev = append(ev, quoteArgs(v.calls[j]))
		}
		ev = append(ev, quoteArgs(c))
	}
	if failed+repeated < minWasted {
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

// maxStretch is how many of the busiest tool's calls a long conversation's evidence
// shows: the first ones and the last, so the reader sees the run and where it ended.
const maxStretch = 5

// stretch quotes the busiest tool's calls in order: what each asked (quoteArgs, so
// calls asking the same read the same) or, for a failed one, its error.
func (b toolTurns) stretch() []analyzer.Evidence {
	shown := b.calls
	if len(shown) > maxStretch {
		shown = append(slices.Clone(shown[:maxStretch-1]), shown[len(shown)-1])
	}
	ev := make([]analyzer.Evidence, 0, len(shown))
	for _, c := range shown {
		if c.failed && c.resultTurn > 0 && c.errQuote != "" {
			ev = append(ev, quoteResult(c))
		} else {
			ev = append(ev, quoteArgs(c))
		}
	}
	return ev
}

// lastWords is the last turn up to last that says something in words (the user's or
// the agent's, not a tool's), where a reader sees how the conversation ended; last
// itself when none does.
func (v *view) lastWords(last int) int {
	for turn := last; turn >= 1; turn-- {
		if r := v.role(turn); (r == transcript.RoleUser || r == transcript.RoleAssistant) && v.hasText(turn) {
			return turn
		}
	}
	return last
}

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
