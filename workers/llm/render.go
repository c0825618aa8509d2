package llm

import (
	"cmp"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/workers/transcript"
)

// Limits of the transcript a diagnosis prompt carries, in runes. Each turn is cut to
// its limit first; when the cut turns together still exceed budgetRunes, whole turns
// are left out by the rule in renderTranscript.
const (
	// systemRunes keeps the opening of the agent's system prompt: policy prompts run
	// to many kilobytes and repeat in every conversation, and the model needs their
	// gist, not every clause.
	systemRunes = 1200
	// messageRunes bounds a user or assistant message.
	messageRunes = 2000
	// toolResultRunes bounds a tool result: results are often large JSON records
	// whose opening says whether the call worked.
	toolResultRunes = 600
	// toolArgsRunes bounds the arguments of one tool call.
	toolArgsRunes = 300
	// budgetRunes is the size above which turns are left out.
	budgetRunes = 24000
	// tailTurns is how many of the last turns are always kept: how a conversation
	// ends decides its outcome.
	tailTurns = 12
)

// rendered is a conversation as the diagnosis prompt shows it.
type rendered struct {
	Text    string
	Turns   int // turns in the conversation
	Omitted int // turns left out
}

// renderTranscript renders conv one turn per entry, "[n] role: text", keeping the
// original 1-based turn numbers so evidence points at the right turn whatever was left
// out. Tool calls read "[n] assistant → tool name(args)" and tool results
// "[n] tool(name): result". Turn text is verbatim up to the per-turn limit, and a tool
// call is written name(args) as in analyzer.TurnText, so a quote copied from the
// prompt is found in the original turn's text.
//
// When the cut turns exceed budgetRunes, the kept turns are: every system turn, the
// first user turn (what the user came for), every tool error with the turn before and
// after it (where agents most often go wrong), and the last tailTurns turns; then, while
// the budget allows, further turns going back from the end. Each run of left-out turns
// is shown as one "[… turns a–b omitted …]" line.
func renderTranscript(conv transcript.Conversation) rendered {
	parts := make([]string, len(conv.Messages))
	total := 0
	for i, m := range conv.Messages {
		parts[i] = renderTurn(i+1, m)
		total += utf8.RuneCountInString(parts[i])
	}
	keep := make([]bool, len(parts))
	if total <= budgetRunes {
		for i := range keep {
			keep[i] = true
		}
	} else {
		keepEssential(conv.Messages, keep)
		fillFromEnd(parts, keep)
	}
	return joinKept(parts, keep)
}

// keepEssential marks the turns renderTranscript never leaves out.
func keepEssential(msgs []transcript.Message, keep []bool) {
	firstUser := true
	for i, m := range msgs {
		switch {
		case m.Role == transcript.RoleSystem, i >= len(msgs)-tailTurns:
			keep[i] = true
		case m.Role == transcript.RoleUser && firstUser:
			keep[i], firstUser = true, false
		case isToolError(m):
			for j := max(i-1, 0); j <= min(i+1, len(msgs)-1); j++ {
				keep[j] = true
			}
		}
	}
}

// fillFromEnd adds turns going back from the end while they fit in the budget.
func fillFromEnd(parts []string, keep []bool) {
	used := 0
	for i, p := range parts {
		if keep[i] {
			used += utf8.RuneCountInString(p)
		}
	}
	for i := len(parts) - 1; i >= 0; i-- {
		if keep[i] {
			continue
		}
		n := utf8.RuneCountInString(parts[i])
		if used+n > budgetRunes {
			return
		}
		keep[i], used = true, used+n
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
		if j-i == 1 {
			fmt.Fprintf(&b, "[… turn %d omitted …]\n", i+1)
		} else {
			fmt.Fprintf(&b, "[… turns %d–%d omitted …]\n", i+1, j)
		}
		r.Omitted += j - i
		i = j
	}
	r.Text = strings.TrimSuffix(b.String(), "\n")
	return r
}

// renderTurn renders message m as turn n.
func renderTurn(n int, m transcript.Message) string {
	switch m.Role {
	case transcript.RoleSystem:
		return fmt.Sprintf("[%d] system: %s", n, cut(m.Content, systemRunes))
	case transcript.RoleTool:
		name := cmp.Or(m.Name, "?")
		return fmt.Sprintf("[%d] tool(%s): %s", n, name, cmp.Or(cut(m.Content, toolResultRunes), "(empty)"))
	case transcript.RoleAssistant:
		var b strings.Builder
		fmt.Fprintf(&b, "[%d] assistant", n)
		if m.Content != "" {
			fmt.Fprintf(&b, ": %s", cut(m.Content, messageRunes))
		}
		for i, c := range m.ToolCalls {
			sep := "\n    → tool "
			if i == 0 && m.Content == "" {
				sep = " → tool "
			}
			fmt.Fprintf(&b, "%s%s(%s)", sep, c.Name, cut(c.Arguments, toolArgsRunes))
		}
		return b.String()
	default:
		return fmt.Sprintf("[%d] %s: %s", n, m.Role, cut(m.Content, messageRunes))
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

// cut keeps the first n runes of s and says how much was left out.
func cut(s string, n int) string {
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s
	}
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return fmt.Sprintf("%s …[%d more characters]", s[:i], total-n)
}
