package offline

import (
	"strings"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/risk"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// personalData reports personal data shown by the assistant. Confidence is 0.9 for
// card, resident ID and social security numbers (checksums or strict formats) and 0.6
// for emails and phone numbers, which are often the user's own contact details read
// back. The evidence quotes the words just before the value (or just after it), not the
// value itself, so the report does not copy the data; the description names the value
// masked. Only a turn that consists of the value alone is quoted as is.
func (a *Analyzer) personalData(v *view) []analyzer.Finding {
	flags := v.flagsOf(risk.KindPersonalData)
	if len(flags) == 0 {
		return nil
	}
	turn := flags[0].Turn
	text := v.msg(turn).Content
	matches := a.screen.PersonalData(text)
	if len(matches) == 0 {
		return nil
	}
	m := matches[0]
	confidence := 0.6
	var kinds []locale.Text
	for _, f := range flags {
		kinds = append(kinds, locale.Msg("finding.personal_item", "Kind", locale.Msg("pii."+strings.ReplaceAll(f.Detail, " ", "_")),
			"Quote", f.Quote, "Turn", digits(f.Turn)))
		if f.Detail != "email address" && f.Detail != "phone number" {
			confidence = 0.9
		}
	}
	desc := locale.Msg("finding.personal_data", "Items", locale.Join("join.semicolon", kinds[:min(len(kinds), 4)]...))
	return []analyzer.Finding{rulePersonalData.finding(v, desc, confidence, analyzer.Evidence{Turn: turn, Quote: contextOf(text, m.Start, m.End)})}
}

// contextOf quotes the words around text[start:end] without the span itself: up to 80
// runes before it on the same line, or else up to 80 after it, or the span when the text
// has nothing else.
func contextOf(text string, start, end int) string {
	before := text[:start]
	if i := strings.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	if n := utf8.RuneCountInString(before); n > 80 {
		before = string([]rune(before)[n-80:]) // the last 80 runes: still a suffix of the text
		if i := strings.IndexByte(before, ' '); i >= 0 {
			before = before[i+1:] // drop the word the cut fell into
		}
	}
	if q := strings.TrimSpace(before); q != "" {
		return q
	}
	if q := textmatch.ClipQuote(strings.SplitN(text[end:], "\n", 2)[0], 80); q != "" {
		return q
	}
	return textmatch.ClipQuote(text[start:end], maxQuote)
}

// injection reports attempts to override the agent's instructions.
func (a *Analyzer) injection(v *view) []analyzer.Finding {
	flags := v.flagsOf(risk.KindPromptInjection)
	if len(flags) == 0 {
		return nil
	}
	desc := locale.Msg("finding.prompt_injection", "Turn", digits(flags[0].Turn), "Quote", v.quotedAt(flags[0].Turn, flags[0].Quote))
	return []analyzer.Finding{rulePromptInjection.finding(v, desc, 0, v.quoteFlag(flags[0]))}
}

// abuse reports insults or threats, separately for the agent (severity 5: it must
// never happen) and the user (severity 3: the agent has to handle it).
func (a *Analyzer) abuse(v *view) []analyzer.Finding {
	var out []analyzer.Finding
	done := map[transcript.Role]bool{}
	for _, f := range v.flagsOf(risk.KindHarmfulContent) {
		role := v.role(f.Turn)
		if done[role] {
			continue
		}
		done[role] = true
		ev := v.quoteFlag(f)
		if role == transcript.RoleAssistant {
			out = append(out, ruleAbusiveAgent.finding(v, locale.Msg("finding.agent_writes", "Turn", digits(f.Turn), "Quote", v.quotedAt(f.Turn, f.Quote)), 0, ev))
		} else {
			out = append(out, ruleAbusiveUser.finding(v, locale.Msg("finding.user_writes", "Turn", digits(f.Turn), "Quote", v.quotedAt(f.Turn, f.Quote)), 0, ev))
		}
	}
	return out
}
