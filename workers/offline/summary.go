package offline

import (
	"github.com/checkup-dev/checkup/db/locale"
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
func summary(v *view, outcome string, findings []analyzer.Finding) locale.Text {
	users := 0
	for _, m := range v.conv.Messages {
		if m.Role == transcript.RoleUser {
			users++
		}
	}
	head := locale.Msg("summary_of.turns", "N", digits(len(v.conv.Messages)), "Users", digits(users))
	if tools := toolNames(v); len(tools) > 0 {
		shown := make([]locale.Text, 0, 4)
		for _, name := range tools[:min(len(tools), 4)] {
			shown = append(shown, locale.Lit(name))
		}
		if len(tools) > len(shown) {
			shown[len(shown)-1] = locale.Msg("summary_of.and_more", "Last", shown[len(shown)-1], "N", digits(len(tools)-len(shown)))
		}
		head = locale.Msg("summary_of.with_tools", "Head", head, "Calls", locale.Msg("summary_of.calls", "N", digits(len(v.calls)), "Count", len(v.calls)),
			"Tools", locale.Join("join.comma", shown...))
	}
	first := locale.Msg("summary_of.outcome", "Head", head, "Outcome", locale.LowerFirst(locale.Msg("outcome."+outcome)))
	if len(findings) == 0 {
		return locale.Sentences(first, locale.Msg("summary_of.no_problem"))
	}
	titles := make([]locale.Text, 0, len(findings))
	for _, f := range findings {
		title := locale.Lit(f.Title)
		if f.Words != nil {
			title = f.Words.Title
		}
		titles = append(titles, locale.LowerFirst(title))
	}
	return locale.Sentences(first, locale.Msg("summary_of.found", "Titles", locale.Join("join.semicolon", titles...)))
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
