package offline

import (
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/risk"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// call is one tool call with its result, linked by tool_call_id (or, for exports
// without ids, by order).
type call struct {
	turn           int // the assistant turn that made it
	id, name, args string
	resultTurn     int    // 0 when no result followed
	failed         bool   // the result reads as an error (a tool_error risk flag)
	errQuote       string // what the error said, an exact substring of the result
	write          bool   // the call changes data (see isWriteTool)
	handoff        bool   // the call hands the conversation to a person
	thought        bool   // the call only writes down the agent's reasoning (see isThinkTool)
	text           string // name(arguments), as analyzer.TurnText renders it
}

// view is a conversation prepared once for all rules: folded texts, tool calls with
// their results, and the risk screen, whose tool_error flags mark the failed calls.
type view struct {
	conv   transcript.Conversation
	folded []textmatch.Folded // per message; zero for tool results and system turns
	calls  []call
	flags  []risk.Flag
	policy policy
	// declines are the assistant turns that say something cannot be done, with the
	// policy sentence each follows when the policy rules the request out.
	declines []decline
	pairs    map[pairQuestion]pairAnswer // similarPair's answers
	stems    *textmatch.Stemmer          // the diagnosing goroutine's, for policy.match
	en       *locale.Localizer           // writes the findings in English (Analyzer.en)
}

// decline is an assistant turn that turns a request down.
type decline struct {
	turn   int
	match  textmatch.Match // where it says so, in the turn's content
	rule   policyRule      // the policy sentence it follows
	byRule bool            // false when no sentence of the policy calls for it
}

func (a *Analyzer) newView(conv transcript.Conversation, flags []risk.Flag, stems *textmatch.Stemmer) *view {
	v := &view{conv: conv, folded: make([]textmatch.Folded, len(conv.Messages)), stems: stems, en: a.en}
	var pending []int // indices into v.calls still waiting for a result
	for i, m := range conv.Messages {
		turn := i + 1
		switch m.Role {
		case transcript.RoleUser, transcript.RoleAssistant:
			v.folded[i] = textmatch.Fold(m.Content)
			for _, tc := range m.ToolCalls {
				pending = append(pending, len(v.calls))
				v.calls = append(v.calls, call{
					turn: turn, id: tc.ID, name: tc.Name, args: tc.Arguments,
					write:   isWriteTool(tc.Name),
					handoff: isHandoffTool(tc.Name),
					thought: isThinkTool(tc.Name),
					text:    analyzer.TurnText(transcript.Message{ToolCalls: []transcript.ToolCall{tc}}),
				})
			}
		case transcript.RoleTool:
			k := -1
			for j, ci := range pending {
				if m.ToolCallID == "" || v.calls[ci].id == m.ToolCallID {
					k = j
					break
				}
			}
			if k < 0 {
				continue // a result for no known call: quality checks report it
			}
			v.calls[pending[k]].resultTurn = turn
			pending = append(pending[:k], pending[k+1:]...)
		}
	}
	v.flags = flags
	v.policy = a.policies.policyOf(conv)
	v.declines = a.findDeclines(v)
	for _, f := range v.flagsOf(risk.KindToolError) {
		for i := range v.calls {
			if v.calls[i].resultTurn == f.Turn {
				v.calls[i].failed, v.calls[i].errQuote = true, v.widen(f.Turn, f.Quote)
			}
		}
	}
	return v
}

func (v *view) msg(turn int) transcript.Message { return v.conv.Messages[turn-1] }
func (v *view) fold(turn int) textmatch.Folded  { return v.folded[turn-1] }

// hasText reports whether a turn says something in words.
func (v *view) hasText(turn int) bool { return strings.TrimSpace(v.msg(turn).Content) != "" }

// role is the role of a turn.
func (v *view) role(turn int) transcript.Role { return v.msg(turn).Role }

// turns is the number of messages other than system prompts, with a user's
// consecutive messages counted as one: in a chat a user sends one thought as several
// short messages, one turn of the conversation. joined is how many it joined.
func (v *view) turns() (n, joined int) {
	prev := transcript.RoleSystem
	for _, m := range v.conv.Messages {
		switch {
		case m.Role == transcript.RoleSystem:
			continue
		case m.Role == transcript.RoleUser && prev == transcript.RoleUser:
			joined++
		default:
			n++
		}
		prev = m.Role
	}
	return n, joined
}

// flagsOf returns the risk flags of one kind.
func (v *view) flagsOf(kind string) []risk.Flag {
	var out []risk.Flag
	for _, f := range v.flags {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

// isWriteTool recognises a tool that changes data by the first word of its name. A
// name is split on underscores, hyphens and camel case, so book_reservation,
// bookReservation and Book-Reservation all count, while payment_status (first word
// "payment") does not; handoff tools are not writes.
func isWriteTool(name string) bool {
	switch firstWord(name) {
	case "book", "update", "cancel", "modify", "create", "delete", "remove", "send", "pay", "refund", "change",
		"submit", "edit", "add", "purchase", "charge", "issue", "set", "upgrade", "downgrade", "transfer",
		"return", "exchange", "replace", "reschedule", "schedule", "register", "subscribe", "unsubscribe",
		"approve", "reject", "assign", "reset", "activate", "deactivate", "close", "place", "apply", "redeem":
		return !isHandoffTool(name)
	}
	return false
}

// isHandoffTool recognises a tool that passes the conversation to a person:
// transfer_to_human_agents, handoff, escalate_to_agent and the like.
func isHandoffTool(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "handoff") || strings.Contains(n, "hand_off") || strings.Contains(n, "escalat") ||
		(strings.Contains(n, "transfer") && (strings.Contains(n, "human") || strings.Contains(n, "agent") || strings.Contains(n, "person")))
}

// isThinkTool recognises a tool that only records the agent's reasoning (think,
// scratchpad): it reads and changes nothing, so calling it is neither a look-up nor
// acting on the user's behalf.
func isThinkTool(name string) bool {
	switch strings.ToLower(name) {
	case "think", "thinking", "reason", "reasoning", "reflect", "scratchpad":
		return true
	}
	return false
}

// firstWord returns the lower-cased first word of an identifier.
func firstWord(name string) string {
	if words := nameWords(name); len(words) > 0 {
		return words[0]
	}
	return ""
}

// nameWords splits an identifier into its lower-cased words, at underscores, hyphens,
// dots, spaces and camel case: list_all_product_types and listAllProductTypes give
// list, all, product, types.
func nameWords(name string) []string {
	var words []string
	var b strings.Builder
	for i, r := range name {
		if r == '_' || r == '-' || r == '.' || r == ' ' || (i > 0 && r >= 'A' && r <= 'Z') {
			if b.Len() > 0 {
				words = append(words, strings.ToLower(b.String()))
				b.Reset()
			}
			if r < 'A' || r > 'Z' {
				continue
			}
		}
		b.WriteRune(r)
	}
	if b.Len() > 0 {
		words = append(words, strings.ToLower(b.String()))
	}
	return words
}
