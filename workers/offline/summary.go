package offline

import (
	"fmt"
	"strings"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// outcome derives the conversation's outcome from the rules: escalated when handed to a
// human; abandoned or unresolved from the ending; partially_resolved when it closed
// normally but the agent declined something or a finding of severity 3 or more was
// raised; resolved otherwise.
func outcome(handedOff bool, end ending, findings []analyzer.Finding) string {
	switch {
	case handedOff:
		return "escalated"
	case end == endAbandoned:
		return "abandoned"
	case end == endUnanswered:
		return "unresolved"
	}
	for _, f := range findings {
		if f.Severity >= 3 || f.Category == "refusal" {
			return "partially_resolved"
		}
	}
	return "resolved"
}

// summary writes one or two sentences from the facts: length, tools used, what went
// wrong. The length counts every turn as the transcript numbers them (a system prompt
// is turn 1), so it is the last turn's number.
func summary(v *view, outcome string, findings []analyzer.Finding) string {
	users := 0
	for _, m := range v.conv.Messages {
		if m.Role == transcript.RoleUser {
			users++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "A conversation of %d turns, %d from the user", len(v.conv.Messages), users)
	if tools := toolNames(v); len(tools) > 0 {
		shown := tools[:min(len(tools), 4)]
		more := ""
		if len(tools) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(tools)-len(shown))
		}
		calls := "tool calls"
		if len(v.calls) == 1 {
			calls = "tool call"
		}
		fmt.Fprintf(&b, ", in which the agent made %d %s (%s%s)", len(v.calls), calls, strings.Join(shown, ", "), more)
	}
	fmt.Fprintf(&b, "; outcome: %s.", strings.ReplaceAll(outcome, "_", " "))
	if len(findings) == 0 {
		b.WriteString(" The offline rules found no problem.")
		return b.String()
	}
	titles := make([]string, 0, len(findings))
	for _, f := range findings {
		titles = append(titles, strings.ToLower(f.Title[:1])+f.Title[1:])
	}
	fmt.Fprintf(&b, " Found: %s.", strings.Join(titles, "; "))
	return b.String()
}

// toolNames lists the distinct tools called, in order of first use.
func toolNames(v *view) []string {
	var names []string
	seen := map[string]bool{}
	for _, c := range v.calls {
		if !seen[c.name] {
			seen[c.name] = true
			names = append(names, c.name)
		}
	}
	return names
}
