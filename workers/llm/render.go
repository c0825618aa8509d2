package llm

import (
	"cmp"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// Limits of one turn in a diagnosis prompt, in runes. Each turn is cut to its limit
// first; when the cut turns together still exceed the transcript's share of the
// prompt cap, whole turns are left out by the rule in renderTranscript.
const (
	// messageRunes bounds a user, assistant or later system message.
	messageRunes = 2000
	// toolResultRunes bounds a tool result: results are often large JSON records
	// whose opening says whether the call worked.
	toolResultRunes = 600
	// toolArgsRunes bounds the arguments of one tool call.
	toolArgsRunes = 300
	// nameRunes bounds a tool's name.
	nameRunes = 80
	// tailTurns is how many of the last turns come right after the first user turn in
	// the order turns are kept: how a conversation ends decides its outcome.
	tailTurns = 12
)

// continuation starts every further line of a turn's text, so that no text of the
// conversation begins a line the way a turn header ("[7] system: …"), a tool call
// ("    → tool …") or a block's end marker does.
const continuation = "\n    | "

// policyTurnText stands in the transcript for a system turn whose text is the policy,
// shown once in its own block.
const policyTurnText = "(the agent's policy, shown above)"

// rendered is a conversation's transcript as the diagnosis prompt shows it.
type rendered struct {
	Text    string
	Turns   int // turns in the conversation
	Omitted int // turns left out
}

// policyOf is the agent's policy: the text of the system turns that open conv, joined
// by blank lines, and how many turns that is. Most conversations of a task share it,
// so the prompt shows it once, whole, in its own block.
func policyOf(conv transcript.Conversation) (string, int) {
	var parts []string
	n := 0
	for _, m := range conv.Messages {
		if m.Role != transcript.RoleSystem {
			break
		}
		n++
		if s := strings.TrimSpace(m.Content); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n"), n
}

// renderTranscript renders conv one turn per entry, "[n] role: text", keeping the
// original 1-based turn numbers so evidence points at the right turn whatever was left
// out, in at most budget runes. The first policyTurns turns are the policy, shown
// elsewhere, and stand as a reference. Tool calls read "[n] assistant → tool
// name(args)" and tool results "[n] tool(name): result". Turn text is verbatim up to
// the per-turn limit, with every further line of it started by continuation, and a
// tool call is written name(args) as in analyzer.TurnText, so a quote copied from the
// prompt is found in the original turn's text.
//
// When the turns exceed budget, they are kept in this order while they fit: the policy
// references, the first user turn (what the user came for), the last tailTurns turns
// from the end, every tool error with the turns before and after it from the first
// (where agents most often go wrong), then the others going back from the end. Each
// run of left-out turns is shown as one "[… turns a–b omitted …]" line, so what is
// left out is mostly the middle and always marked. The result never exceeds budget.
func renderTranscript(conv transcript.Conversation, policyTurns, budget int) rendered {
	parts := make([]string, len(conv.Messages))
	total := 0
	for i, m := range conv.Messages {
		if i < policyTurns {
			parts[i] = fmt.Sprintf("[%d] system: %s", i+1, policyTurnText)
		} else {
			parts[i] = renderTurn(i+1, m)
		}
		total += utf8.RuneCountInString(parts[i]) + 1
	}
	keep := make([]bool, len(parts))
	if total <= budget {
		for i := range keep {
			keep[i] = true
		}
	} else {
		fit(parts, keepOrder(conv.Messages, policyTurns), budget, keep)
	}
	return joinKept(parts, keep)
}

// keepOrder lists the turns in the order renderTranscript keeps them; a turn may
// appear more than once.
func keepOrder(msgs []transcript.Message, policyTurns int) []int {
	order := make([]int, 0, 2*len(msgs))
	for i := range policyTurns {
		order = append(order, i)
	}
	for i, m := range msgs {
		if m.Role == transcript.RoleUser {
			order = append(order, i)
			break
		}
	}
	for i := len(msgs) - 1; i >= max(len(msgs)-tailTurns, 0); i-- {
		order = append(order, i)
	}
	for i, m := range msgs {
		if isToolError(m) {
			for j := max(i-1, 0); j <= min(i+1, len(msgs)-1); j++ {
				order = append(order, j)
			}
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		order = append(order, i)
	}
	return order
}

// fit marks the turns of order as kept while the rendered transcript stays within
// budget runes, counting each turn with its newline and each run of left-out turns as
// one marker line of the longest possible length. A turn that does not fit is skipped
// and a later, shorter one may still fit.
func fit(parts []string, order []int, budget int, keep []bool) {
	n := len(parts)
	marker := utf8.RuneCountInString(omittedMarker(n, n+1)) + 1
	used := marker // at first one run of left-out turns covers the whole conversation
	for _, i := range order {
		if keep[i] {
			continue
		}
		// Keeping i splits its run of left-out turns into the parts on either side.
		runs := -1
		if i > 0 && !keep[i-1] {
			runs++
		}
		if i < n-1 && !keep[i+1] {
			runs++
		}
		cost := utf8.RuneCountInString(parts[i]) + 1 + runs*marker
		if used+cost > budget {
			continue
		}
		keep[i], used = true, used+cost
	}
}

func joinKept(parts []string, keep []bool) rendered {
	var b strings.Builder
	r := rendered{Turns: len(parts)}
	for i := 0; i < len(parts); {
		if keep[i] {
			b.WriteString(parts[i])
			b.WriteByte('\n')
			i++
			continue
		}
		j := i
		for j < len(parts) && !keep[j] {
			j++
		}
		b.WriteString(omittedMarker(i+1, j))
		b.WriteByte('\n')
		r.Omitted += j - i
		i = j
	}
	r.Text = strings.TrimSuffix(b.String(), "\n")
	return r
}

// omittedMarker is the line that stands for turns from..to left out.
func omittedMarker(from, to int) string {
	if from == to {
		return fmt.Sprintf("[… turn %d omitted …]", from)
	}
	return fmt.Sprintf("[… turns %d–%d omitted …]", from, to)
}

// renderTurn renders message m as turn n.
func renderTurn(n int, m transcript.Message) string {
	switch m.Role {
	case transcript.RoleTool:
		name := cmp.Or(oneLine(m.Name, nameRunes), "?")
		return fmt.Sprintf("[%d] tool(%s): %s", n, name, cmp.Or(text(m.Content, toolResultRunes), "(empty)"))
	case transcript.RoleAssistant:
		var b strings.Builder
		fmt.Fprintf(&b, "[%d] assistant", n)
		if m.Content != "" {
			fmt.Fprintf(&b, ": %s", text(m.Content, messageRunes))
		}
		for i, c := range m.ToolCalls {
			sep := "\n    → tool "
			if i == 0 && m.Content == "" {
				sep = " → tool "
			}
			fmt.Fprintf(&b, "%s%s(%s)", sep, oneLine(c.Name, nameRunes), text(c.Arguments, toolArgsRunes))
		}
		return b.String()
	default:
		return fmt.Sprintf("[%d] %s: %s", n, m.Role, text(m.Content, messageRunes))
	}
}

// isToolError reports whether a tool result says the call failed: it starts with
// "error" or carries an "error" key.
func isToolError(m transcript.Message) bool {
	if m.Role != transcript.RoleTool {
		return false
	}
	c := strings.ToLower(strings.TrimSpace(m.Content))
	return strings.HasPrefix(c, "error") || strings.Contains(c, `"error"`)
}

// text is s cut to n runes (see cut) with every line after the first started by
// continuation. Every kind of line break counts, so none can start a line of the
// prompt.
func text(s string, n int) string {
	return strings.Join(lines(cut(s, n)), continuation)
}

// oneLine is s on one line, cut to n runes: line breaks become spaces.
func oneLine(s string, n int) string {
	return cut(strings.Join(lines(s), " "), n)
}

// lineBreaks replaces every line break but "\n" by "\n", so that lines splits on one.
var lineBreaks = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\v", "\n", "\f", "\n",
	"\u0085", "\n", "\u2028", "\n", "\u2029", "\n")

// lines splits s at every kind of line break.
func lines(s string) []string {
	return strings.Split(lineBreaks.Replace(s), "\n")
}

// cut keeps the first n runes of s and says how much was left out.
func cut(s string, n int) string {
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s
	}
	return fmt.Sprintf("%s …[%d more characters]", textmatch.Prefix(s, n), total-n)
}

// cutMiddle keeps the opening two thirds and the closing third of s within n runes,
// with a marker between them saying how much of the what was left out, and returns that
// count (0 when s fits).
func cutMiddle(s string, n int, what string) (string, int) {
	r := []rune(s)
	if len(r) <= n {
		return s, 0
	}
	marker := func(left int) string {
		return fmt.Sprintf("\n[… %d characters of the %s left out …]\n", left, what)
	}
	room := max(n-utf8.RuneCountInString(marker(len(r))), 0)
	head, tail := room*2/3, room/3
	left := len(r) - head - tail
	return string(r[:head]) + marker(left) + string(r[len(r)-tail:]), left
}
