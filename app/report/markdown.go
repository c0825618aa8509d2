package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteMarkdown writes report.md: the report as a document a PM can paste into a
// wiki or a doc. Every text that came from the upload or the analyzer is escaped, so
// it reads as text and can never become a link, an image or HTML.
func WriteMarkdown(w io.Writer, r Report) error {
	b := bufio.NewWriter(w)
	m := mdWriter{b}
	m.header(r)
	m.actions(r)
	m.clusters(r)
	m.risks(r)
	m.population(r)
	m.warnings(r)
	m.about(r)
	if err := b.Flush(); err != nil {
		return fmt.Errorf("report: markdown: %w", err)
	}
	return nil
}

type mdWriter struct{ w *bufio.Writer }

func (m mdWriter) p(format string, args ...any) { fmt.Fprintf(m.w, format+"\n", args...) }

func (m mdWriter) header(r Report) {
	t := r.Task
	m.p("# %s", mdText(t.Title))
	m.p("")
	m.p("Checkup diagnosis · %s · %s · generated %s", StatusLabel(t.Status), analysisLabel(r.Analysis), mdTime(r.GeneratedAt))
	m.p("")
	if e := StatusExplanation(t.Status); e != "" {
		m.p("%s", e)
		m.p("")
	}
	if t.Error != "" {
		m.p("Error: %s", mdText(t.Error))
		m.p("")
	}
	if !t.Terminal {
		m.p("This diagnosis is still running (%s, %d of %d done); the figures below will change.", StageLabel(t.Stage), t.ProgressDone, t.ProgressTotal)
		m.p("")
	}
	m.p("## Summary")
	m.p("")
	pop := r.Population
	m.p("- Conversations uploaded: %d; kept after the quality checks: %d; analysed: %d.", pop.Uploaded, pop.Kept, pop.Analysed)
	risks, improvements := 0, 0
	for _, a := range r.Actions {
		if a.Type == "RISK" {
			risks++
		} else {
			improvements++
		}
	}
	m.p("- Actions: %d (%s, %s), from %s.", len(r.Actions), plural(risks, "risk", "risks"),
		plural(improvements, "improvement", "improvements"), plural(len(r.Clusters), "issue cluster", "issue clusters"))
	rel := r.Reliability
	m.p("- Analyzer answers: %d valid on the first try, %d repaired, %d could not be used (those conversations are left out).", rel.FirstPassValid, rel.Repaired, rel.Isolated)
	if r.Usage.LLMCalls > 0 {
		m.p("- Model usage: %d calls, %d prompt tokens, %d completion tokens.", r.Usage.LLMCalls, r.Usage.PromptTokens, r.Usage.CompletionTokens)
	}
	m.p("")
}

func (m mdWriter) actions(r Report) {
	m.p("## Actions, most urgent first")
	m.p("")
	if len(r.Actions) == 0 {
		m.p("No Actions yet.")
		m.p("")
	}
	for _, a := range r.Actions {
		m.p("### %d. [%s] %s", a.Rank, a.Type, mdText(a.Title))
		m.p("")
		p := a.PriorityParts
		m.p("%d conversations (%s of analysed) · priority %s of 100 (prevalence %s + severity %s + confidence %s) · fix in %s",
			a.Conversations, Percent(a.Share), Score(a.PriorityScore), Score(p.PrevalenceTerm), Score(p.SeverityTerm),
			Score(p.ConfidenceTerm), mdText(FixLocationLabel(a.FixLocation)))
		m.p("")
		m.p("**Problem.** %s", mdText(a.Problem))
		m.p("")
		if len(a.Recommendation) > 0 {
			m.p("**What to do:**")
			m.p("")
			for i, s := range a.Recommendation {
				m.p("%d. %s", i+1, mdText(s))
			}
			m.p("")
		}
		if a.ExpectedImpact != "" {
			m.p("**Expected impact.** %s", mdText(a.ExpectedImpact))
			m.p("")
		}
		for _, q := range a.Evidence {
			m.quote(q.Quote)
			m.p(">")
			m.p("> — conversation %s, turn %d%s", mdText(conversationName(q.ConversationID, q.ConversationSeq)), q.Turn, unverified(q.Verified))
			m.p("")
		}
	}
	if len(r.FailedActions) > 0 {
		m.p("### Actions that could not be written")
		m.p("")
		for _, f := range r.FailedActions {
			m.p("- [%s] %s: %s", f.Type, mdText(f.ClusterTitle), mdText(f.Error))
		}
		m.p("")
	}
}

func (m mdWriter) quote(text string) {
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		m.p("> %s", mdLine(line))
	}
}

func (m mdWriter) clusters(r Report) {
	if len(r.Clusters) == 0 {
		return
	}
	m.p("## Issue clusters")
	m.p("")
	m.p("| Type | Issue | Conversations | Share | Findings | Priority | Action |")
	m.p("|---|---|---:|---:|---:|---:|---:|")
	for _, c := range r.Clusters {
		rank := "—"
		if c.ActionRank > 0 {
			rank = fmt.Sprintf("#%d", c.ActionRank)
		}
		m.p("| %s | %s | %d | %s | %d | %s | %s |", c.Type, mdText(c.Title), c.Conversations, Percent(c.Prevalence), c.FindingCount, Score(c.PriorityScore), rank)
	}
	m.p("")
}

func (m mdWriter) risks(r Report) {
	rs := r.RiskSummary
	if rs == nil {
		return
	}
	m.p("## Risk screening")
	m.p("")
	m.p("%d conversations screened without a model; %d flagged; %d chosen for diagnosis.", rs.Screened, rs.Flagged, rs.Selected)
	m.p("")
	for _, k := range rs.Kinds {
		m.p("- %s: %d conversations, %d flags", RiskKindLabel(k.Kind), k.Conversations, k.Flags)
		for _, e := range k.Examples {
			m.p("  - conversation %s, turn %d: %s", mdText(conversationName(e.ConversationID, e.Seq)), e.Turn, mdText(e.Quote))
		}
	}
	m.p("")
}

func (m mdWriter) population(r Report) {
	if len(r.Funnel) == 0 {
		return
	}
	m.p("## Which conversations were analysed")
	m.p("")
	m.p("| Step | Removed | Remaining | Why |")
	m.p("|---|---:|---:|---|")
	for _, s := range r.Funnel {
		reasons := make([]string, len(s.Reasons))
		for i, rs := range s.Reasons {
			reasons[i] = fmt.Sprintf("%s (%d)", mdText(rs.Reason), rs.Count)
		}
		m.p("| %s | %d | %d | %s |", mdText(s.Label), s.Removed, s.Remaining, strings.Join(reasons, "; "))
	}
	m.p("")
}

func (m mdWriter) warnings(r Report) {
	if len(r.Warnings) == 0 {
		return
	}
	m.p("## Warnings")
	m.p("")
	for _, w := range r.Warnings {
		scope := ""
		if w.Scope != "" {
			scope = " (" + mdText(w.Scope) + ")"
		}
		m.p("- %s%s: %s", StageLabel(w.Stage), scope, mdText(w.Message))
	}
	if more := r.WarningCount - len(r.Warnings); more > 0 {
		m.p("- … and %d more", more)
	}
	m.p("")
}

func (m mdWriter) about(r Report) {
	m.p("---")
	m.p("")
	m.p("Generated by Checkup from task %s (report schema version %d). RISK Actions cover every risk found; ACTION Actions are the most urgent improvements. A quote marked unverified was not found word for word in its turn.",
		r.Task.ID, r.SchemaVersion)
}

func analysisLabel(a Analysis) string {
	switch {
	case a.Analyzer == "":
		return "analyzer not chosen yet"
	case a.Offline:
		return "offline analysis (rules, no model)"
	case a.Model != "":
		return mdText(fmt.Sprintf("%s, model %s, prompt %s", cmpOr(a.Label, a.Analyzer), a.Model, a.PromptVersion))
	}
	return mdText(cmpOr(a.Label, a.Analyzer))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// plural is "1 risk", "2 risks".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func unverified(ok bool) string {
	if ok {
		return ""
	}
	return " (unverified)"
}

func mdTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// mdText escapes text for an inline position in Markdown: line breaks become spaces
// and every character that Markdown or HTML would interpret is backslash-escaped.
func mdText(s string) string {
	return mdEscape(strings.Join(strings.Fields(s), " "))
}

// mdLine escapes one line that starts a block (a line of a quote): besides mdText's
// escapes, a leading list marker or heading sign is escaped too.
func mdLine(s string) string {
	s = mdEscape(strings.TrimRight(s, " \t\r"))
	trimmed := strings.TrimLeft(s, " ")
	if trimmed == "" {
		return s
	}
	switch trimmed[0] {
	case '-', '+', '=':
		return `\` + trimmed
	}
	if i := strings.IndexFunc(trimmed, func(r rune) bool { return r < '0' || r > '9' }); i > 0 &&
		(trimmed[i] == '.' || trimmed[i] == ')') {
		return trimmed[:i] + `\` + trimmed[i:]
	}
	return trimmed
}

var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`, `<`, `\<`, `>`, `\>`,
	`|`, `\|`, `&`, `\&`, `#`, `\#`, `~`, `\~`, `!`, `\!`,
)

func mdEscape(s string) string { return mdEscaper.Replace(s) }
