package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/cluster"
)

// WriteMarkdown writes report.md: the report as a document a PM can paste into a
// wiki or a doc, opening with a few lines that sum it up. Every text that came from the
// upload or the analyzer reads as text and can never become a link, an image or HTML:
// quotes of the conversations are code spans, which Markdown shows verbatim, and other
// texts (titles, problems, steps, ids) are backslash-escaped, down to the URLs and
// email addresses GitHub would link by itself.
func WriteMarkdown(w io.Writer, r Report, l *locale.Localizer) error {
	b := bufio.NewWriter(w)
	m := mdWriter{b, l}
	m.inShort(r)
	m.header(r)
	m.actions(r)
	m.seenOnce(r)
	m.outcomes(r)
	m.clusters(r)
	m.expected(r)
	m.risks(r)
	m.population(r)
	if err := m.warnings(r); err != nil {
		return fmt.Errorf("report: markdown: %w", err)
	}
	m.about(r)
	if err := b.Flush(); err != nil {
		return fmt.Errorf("report: markdown: %w", err)
	}
	return nil
}

type mdWriter struct {
	w *bufio.Writer
	l *locale.Localizer
}

func (m mdWriter) p(format string, args ...any) { fmt.Fprintf(m.w, format+"\n", args...) }

// topActions is how many Actions the opening lines name.
const topActions = 3

// inShort writes the title and the lines a PM pastes into a chat or a status update:
// how many conversations were uploaded, kept and diagnosed, and the first Actions by rank
// with their share.
func (m mdWriter) inShort(r Report) {
	m.p("# %s", mdText(r.Task.Title))
	m.p("")
	pop := r.Population
	line := fmt.Sprintf("**In short:** %s uploaded, %d kept after the quality checks, %d diagnosed.",
		plural(r.UploadedCount(), "conversation", "conversations"), pop.Kept, pop.Analysed)
	if !r.Checked() {
		line = fmt.Sprintf("**In short:** %s uploaded; %s.", plural(r.UploadedCount(), "conversation", "conversations"), notChecked(r.Task))
	}
	if !r.Task.Terminal {
		line += " The diagnosis is still running; these figures will change."
	}
	switch n := len(r.Actions); {
	case n == 0:
		m.p("%s No Actions yet.", line)
	case n <= topActions:
		m.p("%s %s:", line, plural(n, "Action", "Actions"))
	default:
		m.p("%s Top %d of %d Actions:", line, topActions, n)
	}
	m.p("")
	for i, a := range r.Actions {
		if i == topActions {
			break
		}
		m.p("%d. [%s] %s — %s of diagnosed conversations", a.Rank, a.Type, mdText(a.TitleIn(m.l)), Percent(a.Share))
	}
	if len(r.Actions) > 0 {
		m.p("")
	}
}

func (m mdWriter) header(r Report) {
	t := r.Task
	m.p("Checkup diagnosis · %s · %s · generated %s", StatusLabel(m.l, t.Status), analysisLabel(r.Analysis), mdTime(r.GeneratedAt))
	m.p("")
	if e := StatusExplanation(m.l, t.Status); e != "" {
		m.p("%s", e)
		m.p("")
	}
	if t.Error != "" {
		m.p("Error: %s", mdText(t.Error))
		m.p("")
	}
	if !t.Terminal {
		m.p("This diagnosis is still running (%s, %d of %d done); the figures below will change.", StageLabel(m.l, t.Stage), t.ProgressDone, t.ProgressTotal)
		m.p("")
	}
	m.p("## In numbers")
	m.p("")
	pop := r.Population
	if r.Checked() {
		m.p("- Conversations uploaded: %d; kept after the quality checks: %d; analyzed: %d.", r.UploadedCount(), pop.Kept, pop.Analysed)
	} else {
		m.p("- Conversations uploaded: %d; %s.", r.UploadedCount(), notChecked(r.Task))
	}
	risks, improvements := 0, 0
	for _, a := range r.Actions {
		if a.Type == "RISK" {
			risks++
		} else {
			improvements++
		}
	}
	issues, expected := r.IssueCounts()
	from := plural(issues, "issue", "issues")
	if expected > 0 {
		from += ", besides " + plural(expected, "expected behavior", "expected behaviors")
	}
	m.p("- Actions: %d (%s, %s), from %s.", len(r.Actions), plural(risks, "risk", "risks"),
		plural(improvements, "improvement", "improvements"), from)
	rel := r.Reliability
	if r.Analysis.Offline && rel.Repaired == 0 {
		m.p("- Diagnosed by rules, without a model, so no answer needed repair; %d could not be used (those conversations are left out).", rel.Isolated)
	} else {
		m.p("- Analyzer answers: %d valid on the first try, %d repaired, %d could not be used (those conversations are left out).", rel.FirstPassValid, rel.Repaired, rel.Isolated)
	}
	if r.Usage.LLMCalls > 0 {
		m.p("- Model usage: %s, %s, %s.", plural(r.Usage.LLMCalls, "call", "calls"),
			plural(int(r.Usage.PromptTokens), "prompt token", "prompt tokens"), plural(int(r.Usage.CompletionTokens), "completion token", "completion tokens"))
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
		m.p("### %d. [%s] %s", a.Rank, a.Type, mdText(a.TitleIn(m.l)))
		m.p("")
		p := a.PriorityParts
		m.p("%s (%s of analyzed) · priority %s of 100 (prevalence %s + severity %s + confidence %s) · fix in %s",
			plural(a.Conversations, "conversation", "conversations"), Percent(a.Share), Score(a.PriorityScore), Score(p.PrevalenceTerm), Score(p.SeverityTerm),
			Score(p.ConfidenceTerm), mdText(FixLocationLabel(m.l, a.FixLocation)))
		m.p("")
		if o := a.LabelOutcomes; o != nil && a.FailureRateIn != nil && a.FailureRateOut != nil && a.ExcessFailures != nil && a.QValue != nil {
			m.p("%d of its labeled conversations failed (%s, against %s of the others): it explains %s beyond what its size predicts (q %s).",
				o.Failed, Percent(*a.FailureRateIn), Percent(*a.FailureRateOut), ExcessFailures(m.l, *a.ExcessFailures), PValue(*a.QValue))
			m.p("")
		}
		m.p("%s", m.l.T("md.rank", "Support", mdText(SupportWords(m.l, a.Support))))
		m.p("")
		m.p("**Problem.** %s", mdText(a.ProblemIn(m.l)))
		m.p("")
		if len(a.Recommendation) > 0 {
			m.p("**What to do:**")
			m.p("")
			for i, s := range a.RecommendationIn(m.l) {
				m.p("%d. %s", i+1, mdText(s))
			}
			m.p("")
		}
		if a.ExpectedImpact != "" {
			m.p("**Expected impact.** %s", mdText(a.ImpactIn(m.l)))
			m.p("")
		}
		for _, q := range a.Evidence {
			m.example(q)
			m.p(">")
			m.p("> — %s%s", m.conversationRef(r, q), unverified(q.Verified))
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

// example writes a quote, or the exchange it belongs to turn by turn: who said what,
// a tool call named, not printed.
func (m mdWriter) example(q Quote) {
	if len(q.Exchange) < 2 {
		m.quote(q.Quote)
		return
	}
	for i, e := range q.Exchange {
		if i > 0 {
			m.p(">")
		}
		who := m.l.T("md.who_turn", "N", strconv.Itoa(e.Turn))
		if name := speakerName(m.l, e.Speaker); name != "" {
			who = m.l.T("md.who_speaker", "Name", name, "N", strconv.Itoa(e.Turn))
		}
		if e.Speaker == analyzer.SpeakerCall {
			if name, _, ok := strings.Cut(e.Quote, "("); ok && name != "" && !strings.ContainsAny(name, " \t\r\n\"{:") {
				m.p("> %s", m.l.T("md.calls", "Who", who, "Name", codeSpan(name)))
			} else {
				m.p("> %s", m.l.T("md.calls_with", "Who", who, "Args", codeSpan(strings.Join(strings.Fields(e.Quote), " "))))
			}
			continue
		}
		lines := strings.Split(strings.TrimSpace(lineEndings.Replace(e.Quote)), "\n")
		m.p("> %s", m.l.T("md.said", "Who", who, "Quote", codeSpan(strings.TrimSpace(lines[0]))))
		for _, line := range lines[1:] {
			if line = strings.TrimSpace(line); line != "" {
				m.p("> %s", codeSpan(line))
			}
		}
	}
}

// speakerName names whose words a quote of an exchange is.
func speakerName(l *locale.Localizer, speaker string) string {
	switch speaker {
	case analyzer.SpeakerUser:
		return l.T("md.speaker_user")
	case analyzer.SpeakerAgent, analyzer.SpeakerCall:
		return l.T("md.speaker_agent")
	case analyzer.SpeakerTool:
		return l.T("md.speaker_tool")
	}
	return ""
}

// conversationRef names a quote's conversation and turn as a link to that turn on the
// dashboard, so a reader of the document can open the conversation.
func (m mdWriter) conversationRef(r Report, q Quote) string {
	return fmt.Sprintf("[%s](%s)", m.l.T("md.conversation_turn", "Name", mdText(conversationName(q.ConversationID, q.ConversationSeq)), "Turn", strconv.Itoa(q.Turn)),
		ConversationLink(r.BaseURL, r.Task.ID, q.ConversationSeq, q.Turn))
}

// seenOnce lists the issues seen in one conversation only, below the Actions: too
// little to act on, each with its quote.
func (m mdWriter) seenOnce(r Report) {
	cs := r.SeenOnce()
	if len(cs) == 0 {
		return
	}
	m.p("### %s", m.l.T("md.seen_once"))
	m.p("")
	m.p("%s", m.l.T("md.seen_once_intro"))
	m.p("")
	for _, c := range cs {
		line := fmt.Sprintf("- [%s] %s", c.Type, mdText(c.TitleIn(m.l)))
		if q := c.Example; q != nil {
			line += m.l.T("md.seen_once_example", "Quote", codeSpan(strings.Join(strings.Fields(q.Quote), " ")), "Ref", m.conversationRef(r, *q))
		}
		m.p("%s", line)
	}
	m.p("")
}

// quote writes a quote of a conversation as a block quote whose lines are code spans:
// the words show exactly as they were said, markup included, and nothing in them is
// interpreted.
func (m mdWriter) quote(text string) {
	for _, line := range strings.Split(strings.TrimSpace(lineEndings.Replace(text)), "\n") {
		if line = strings.TrimRight(line, " \t\r"); strings.TrimSpace(line) == "" {
			m.p(">")
			continue
		}
		m.p("> %s", codeSpan(line))
	}
}

func (m mdWriter) clusters(r Report) {
	var cs []Cluster
	for _, c := range r.Clusters {
		if !c.Expected {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return
	}
	labelled := cs[0].LabelOutcomes != nil
	m.p("## Issue clusters")
	m.p("")
	if labelled {
		m.p("| Type | Issue | Conversations | Share | Failed / succeeded | Lift | q | Findings | Priority | Action |")
		m.p("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	} else {
		m.p("| Type | Issue | Conversations | Share | Findings | Priority | Action |")
		m.p("|---|---|---:|---:|---:|---:|---:|")
	}
	for _, c := range cs {
		rank := "—"
		if c.ActionRank > 0 {
			rank = fmt.Sprintf("#%d", c.ActionRank)
		} else if why, _ := NoActionWords(m.l, c); why != "" {
			rank = "— (" + why + ")"
		}
		split := ""
		if o := c.LabelOutcomes; labelled && o != nil && c.FailureLift != nil && c.QValue != nil {
			split = fmt.Sprintf(" %d / %d | %s | %s |", o.Failed, o.Succeeded, Lift(*c.FailureLift), PValue(*c.QValue))
		} else if labelled {
			split = " | | |"
		}
		title := mdText(c.TitleIn(m.l))
		if c.PolicyOverruled {
			title += " (the policy seemed to call for it; the owner made it an issue"
			if c.ExpectedReason != "" {
				title += ": " + mdText(c.ExpectedReason)
			}
			title += ")"
		}
		m.p("| %s | %s | %d | %s |%s %d | %s | %s |", c.Type, title, c.Conversations, Percent(c.Prevalence), split, c.FindingCount, Score(c.PriorityScore), rank)
	}
	m.p("")
	m.issueNotes(cs)
}

// issueNotes explains, under the issues table, each reason its Action column gives
// for an issue without an Action, once, in the order they first appear; and which
// policy sentence each issue the owner made an issue had been matched to.
func (m mdWriter) issueNotes(cs []Cluster) {
	seen := map[string]bool{}
	var notes []string
	for _, c := range cs {
		if short, long := NoActionWords(m.l, c); short != "" && !seen[short] {
			seen[short] = true
			notes = append(notes, fmt.Sprintf("- *%s*: %s", mdText(short), mdText(long)))
		}
	}
	for _, c := range cs {
		if c.PolicyOverruled && len(c.Policies) > 0 {
			notes = append(notes, fmt.Sprintf("- %s had been matched to the policy sentence %s", mdText(c.TitleIn(m.l)), inlineQuote(c.Policies[0])))
		}
	}
	if len(notes) == 0 {
		return
	}
	for _, n := range notes {
		m.p("%s", n)
	}
	m.p("")
}

// scoredBy says where the failure scores come from: the agent's detector, with how well
// it did on scenarios it had not seen beside what counting messages alone scores.
func (m mdWriter) scoredBy(r Report) {
	f := r.FailureModel
	if f == nil {
		return
	}
	runs := "1 run"
	if f.Runs != 1 {
		runs = fmt.Sprintf("%d runs", f.Runs)
	}
	line := fmt.Sprintf("Failure scores come from the detector of the agent “%s” (version %d), trained on %d labelled conversations from %s: cross-validated AUROC %.2f, 95%% interval %.2f–%.2f.",
		mdText(f.Agent), f.Version, f.TrainedOn, runs, f.CVAUROC, f.CVInterval[0], f.CVInterval[1])
	for _, b := range f.Baselines {
		if b.Name == "messages" {
			line += fmt.Sprintf(" Counting messages alone scores %.2f.", b.AUROC)
		}
	}
	m.p("%s", line)
	m.p("")
}

// outcomes writes what the outcome labels say: the split, the agreement of the
// analysis with them and the failure drivers; without labels, which field to add.
func (m mdWriter) outcomes(r Report) {
	if !r.Task.Terminal {
		return
	}
	l := r.Population.Labelled
	m.p("## What drives failed conversations")
	m.p("")
	m.scoredBy(r)
	if !l.Any() {
		m.p("The upload carries no outcome per conversation. Add one of these fields to each conversation's metadata (or a CSV column) to see which problems cost resolved conversations: %s.", mdText(LabelFields(m.l)))
		m.p("")
		return
	}
	m.p("Outcome labels read from %s: %d failed, %d succeeded, %d without a label.", codeSpan(l.Field), l.Failed, l.Succeeded, l.Unlabelled)
	m.p("")
	if c := r.LabelCheck; c != nil && c.AUROC != nil && c.FailedFlagged != nil && c.SucceededClean != nil {
		m.p("Agreement of this analysis with the labels: AUROC %.2f (0.5 is chance); %s of the failed conversations estimated failed, %s of the successful ones left clean.", *c.AUROC, Percent(*c.FailedFlagged), Percent(*c.SucceededClean))
		m.p("")
	}
	if len(r.Drivers) == 0 {
		m.p("Nothing is over-represented among the failed conversations with enough certainty (q ≤ 0.05 and at least 3 failed conversations).")
		m.p("")
		return
	}
	m.p("| Feature | Failed / succeeded | Failure rate with / without | Lift | q | Examples |")
	m.p("|---|---:|---:|---:|---:|---|")
	for _, d := range r.Drivers {
		var ex []string
		for _, e := range d.Examples {
			ex = append(ex, mdText(conversationName(e.ID, e.Seq)))
		}
		feature := mdText(DriverKindLabel(m.l, d.Kind)) + ": " + mdText(DriverFeatureLabel(m.l, d.Kind, d.Feature))
		if w := d.Written; w != nil {
			// A table cell ends at a pipe, inside a code span too, unless it is escaped.
			quote := strings.ReplaceAll(inlineQuote(w.Quote), "|", `\|`)
			feature += fmt.Sprintf(", as in %s (%s, turn %d)", quote, mdText(conversationName(w.ID, w.Seq)), w.Turn)
		}
		m.p("| %s | %d / %d | %s / %s | %s | %s | %s |", feature, d.Failed, d.Succeeded,
			Percent(d.RateWith), Percent(d.RateWithout), Lift(d.Lift), PValue(d.QValue), strings.Join(ex, ", "))
	}
	m.p("")
}

// expected lists the behaviour the agent's policy calls for, with the sentence it
// follows, and what the owner marked as expected, with their reason.
func (m mdWriter) expected(r Report) {
	first := true
	for _, c := range r.Clusters {
		if !c.Expected {
			continue
		}
		if first {
			m.p("## Expected behavior")
			m.p("")
			m.p("What the agent did because its own policy says so, or what its owner marked as expected: shown for review, never an Action.")
			m.p("")
			first = false
		}
		m.p("- %s — %s", mdText(c.TitleIn(m.l)), plural(c.Conversations, "conversation", "conversations"))
		if c.ExpectedBy != nil && *c.ExpectedBy == cluster.ExpectedByOwner {
			reason := "no reason given"
			if c.ExpectedReason != "" {
				reason = inlineQuote(c.ExpectedReason)
			}
			m.p("  - Marked as expected by the owner: %s", reason)
			continue
		}
		for _, policy := range c.Policies {
			m.p("  - %s", inlineQuote(policy))
		}
	}
	if !first {
		m.p("")
	}
}

func (m mdWriter) risks(r Report) {
	rs := r.RiskSummary
	if rs == nil {
		return
	}
	m.p("## Risk screening")
	m.p("")
	m.p("%s screened without a model; %d flagged; %d chosen for diagnosis.", plural(rs.Screened, "conversation", "conversations"), rs.Flagged, rs.Selected)
	m.p("")
	for _, k := range rs.Kinds {
		m.p("- %s: %s, %s", RiskKindLabel(m.l, k.Kind), plural(k.Conversations, "conversation", "conversations"), plural(k.Flags, "flag", "flags"))
		for _, e := range k.Examples {
			m.p("  - conversation %s, turn %d: %s", mdText(conversationName(e.ConversationID, e.Seq)), e.Turn, e.Marked(inlineQuote(e.Quote)))
		}
	}
	m.p("")
}

func (m mdWriter) population(r Report) {
	if len(r.Funnel) == 0 {
		return
	}
	m.p("## Which conversations were analyzed")
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

func (m mdWriter) warnings(r Report) error {
	if r.WarningCount == 0 && len(r.Warnings) == 0 {
		return nil
	}
	m.p("## Warnings")
	m.p("")
	shown := 0
	for w, err := range r.AllWarnings() {
		if err != nil {
			return err
		}
		shown++
		scope := ""
		if w.Scope != "" {
			scope = " (" + mdText(w.Scope) + ")"
		}
		m.p("- %s%s: %s", StageLabel(m.l, w.Stage), scope, mdText(w.Message))
	}
	if more := r.WarningCount - shown; more > 0 {
		m.p("- … and %d more", more)
	}
	m.p("")
	return nil
}

func (m mdWriter) about(r Report) {
	risks := "RISK Actions cover every risk found"
	switch waiting := r.WaitingIssues("RISK"); {
	case waiting == 1:
		risks += " but one that was expected when they were written: a new run writes its Action"
	case waiting > 1:
		risks += fmt.Sprintf(" but %d that were expected when they were written: a new run writes their Actions", waiting)
	}
	m.p("---")
	m.p("")
	m.p("Generated by Checkup from task %s (report schema version %d). %s; ACTION Actions are the most urgent improvements. A quote marked unverified was not found word for word in its turn.",
		r.Task.ID, r.SchemaVersion, risks)
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

// inlineQuote renders a quote inside a line: a code span of its words on one line.
func inlineQuote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return `""`
	}
	return codeSpan(s)
}

// lineEndings turns CommonMark's three line endings into "\n": a bare "\r" ends a line
// too, so text split on "\n" alone could start a line of its own (a heading, an image).
var lineEndings = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// lineBreaks turns every line ending into a space, for text that must stay on its line.
var lineBreaks = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ")

// codeSpan renders one line of text as a Markdown code span, which shows its content
// verbatim: a line break in it becomes a space (one would end the block quote or table
// row the span is in), the backtick fence is longer than any run of backticks in the
// text, and a space pads each side when the text starts or ends with a backtick or a
// space, since Markdown strips one padding space from each side.
func codeSpan(s string) string {
	s = lineBreaks.Replace(s)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}

var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`, `<`, `\<`, `>`, `\>`,
	`|`, `\|`, `&`, `\&`, `#`, `\#`, `~`, `\~`, `!`, `\!`,
)

func mdEscape(s string) string { return noAutolink(mdEscaper.Replace(s)) }

// noAutolink breaks what GitHub's Markdown turns into a link by itself (its autolink
// extension, goldmark's Linkify): a scheme's "://", "www." and an email address's "@",
// each with a backslash escape, which shows as the character alone. s is escaped
// already, so every backslash added here starts an escape of its own.
func noAutolink(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ':' && strings.HasPrefix(s[i+1:], "//"), c == '@', c == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// notChecked says that the quality checks have not run, for a report that has no
// kept or analyzed count to give.
func notChecked(t Task) string {
	if t.Terminal {
		return "the diagnosis stopped before the quality checks"
	}
	return "the quality checks have not run yet"
}
