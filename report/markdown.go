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
	line := m.l.T("md.in_short", "Uploaded", m.count("md.conversations", r.UploadedCount()), "Kept", digits(pop.Kept), "Analysed", digits(pop.Analysed))
	if !r.Checked() {
		line = m.l.T("md.in_short_unchecked", "Uploaded", m.count("md.conversations", r.UploadedCount()), "Why", m.notChecked(r.Task))
	}
	if !r.Task.Terminal {
		line = m.l.T("md.then", "A", line, "B", m.l.T("md.still_running_short"))
	}
	switch n := len(r.Actions); {
	case n == 0:
		m.p("%s", m.l.T("md.then", "A", line, "B", m.l.T("md.no_actions")))
	case n <= topActions:
		m.p("%s", m.l.T("md.then", "A", line, "B", m.count("md.actions_colon", n)))
	default:
		m.p("%s", m.l.T("md.then", "A", line, "B", m.l.T("md.top_actions", "Top", digits(topActions), "N", digits(n))))
	}
	m.p("")
	for i, a := range r.Actions {
		if i == topActions {
			break
		}
		m.p("%d. [%s] %s", a.Rank, TypeLabel(m.l, a.Type), m.l.T("md.top_line", "Title", mdText(a.TitleIn(m.l)), "Share", Percent(a.Share)))
	}
	if len(r.Actions) > 0 {
		m.p("")
	}
}

func (m mdWriter) header(r Report) {
	t := r.Task
	m.p("%s", m.l.T("md.header", "Status", StatusLabel(m.l, t.Status), "Analysis", m.analysisLabel(r.Analysis), "Time", mdTime(r.GeneratedAt)))
	m.p("")
	if e := StatusExplanation(m.l, t.Status); e != "" {
		m.p("%s", e)
		m.p("")
	}
	if t.Error != "" {
		m.p("%s", m.l.T("md.error", "Error", mdText(t.Error)))
		m.p("")
	}
	if !t.Terminal {
		m.p("%s", m.l.T("md.still_running", "Stage", StageLabel(m.l, t.Stage), "Done", digits(int(t.ProgressDone)), "Total", digits(int(t.ProgressTotal))))
		m.p("")
	}
	m.p("## %s", m.l.T("md.in_numbers"))
	m.p("")
	pop := r.Population
	if r.Checked() {
		m.p("- %s", m.l.T("md.numbers_conversations", "Uploaded", digits(r.UploadedCount()), "Kept", digits(pop.Kept), "Analysed", digits(pop.Analysed)))
	} else {
		m.p("- %s", m.l.T("md.numbers_unchecked", "Uploaded", digits(r.UploadedCount()), "Why", m.notChecked(r.Task)))
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
	from := m.count("md.issues", issues)
	if expected > 0 {
		from = m.l.T("md.besides_expected", "Issues", from, "Expected", m.count("md.expected_behaviors", expected))
	}
	m.p("- %s", m.l.T("md.numbers_actions", "N", digits(len(r.Actions)), "Risks", m.count("md.risks", risks),
		"Improvements", m.count("md.improvements", improvements), "From", from))
	rel := r.Reliability
	if r.Analysis.Offline && rel.Repaired == 0 {
		m.p("- %s", m.l.T("md.by_rules", "Isolated", digits(rel.Isolated)))
	} else {
		m.p("- %s", m.l.T("md.answers", "First", digits(rel.FirstPassValid), "Repaired", digits(rel.Repaired), "Isolated", digits(rel.Isolated)))
	}
	if r.Usage.LLMCalls > 0 {
		m.p("- %s", m.l.T("md.usage", "Calls", m.count("md.llm_calls", r.Usage.LLMCalls),
			"Prompt", m.count("md.prompt_tokens", int(r.Usage.PromptTokens)), "Completion", m.count("md.completion_tokens", int(r.Usage.CompletionTokens))))
	}
	m.p("")
}

func (m mdWriter) actions(r Report) {
	m.p("## %s", m.l.T("md.actions_heading"))
	m.p("")
	if len(r.Actions) == 0 {
		m.p("%s", m.l.T("md.no_actions"))
		m.p("")
	}
	for _, a := range r.Actions {
		m.p("### %d. [%s] %s", a.Rank, TypeLabel(m.l, a.Type), mdText(a.TitleIn(m.l)))
		m.p("")
		p := a.PriorityParts
		figures := "md.action_figures_plain"
		if a.PriorityDecided {
			figures = "md.action_figures" // the priority decides its place: say so
		}
		m.p("%s", m.l.T(figures, "Conversations", m.count("md.conversations", a.Conversations), "Share", Percent(a.Share),
			"Priority", Score(a.PriorityScore), "Prevalence", Score(p.PrevalenceTerm), "Severity", Score(p.SeverityTerm),
			"Confidence", Score(p.ConfidenceTerm), "Where", mdText(FixLocationLabel(m.l, a.FixLocation))))
		m.p("")
		if o := a.LabelOutcomes; o != nil && a.FailureRateIn != nil && a.FailureRateOut != nil && a.ExcessFailures != nil && a.QValue != nil {
			m.p("%s", m.l.T("md.action_outcomes", "Failed", digits(o.Failed), "In", Percent(*a.FailureRateIn), "Out", Percent(*a.FailureRateOut),
				"Excess", ExcessFailures(m.l, *a.ExcessFailures), "Q", PValue(*a.QValue)))
			m.p("")
		}
		m.p("%s", m.l.T("md.rank", "Support", mdText(SupportWords(m.l, a.Support))))
		m.p("")
		m.p("%s", m.l.T("md.problem", "Problem", mdText(a.ProblemIn(m.l))))
		m.p("")
		if len(a.Recommendation) > 0 {
			m.p("%s", m.l.T("md.what_to_do"))
			m.p("")
			for i, s := range a.RecommendationIn(m.l) {
				m.p("%d. %s", i+1, mdText(s))
			}
			m.p("")
		}
		if a.ExpectedImpact != "" {
			m.p("%s", m.l.T("md.impact", "Impact", mdText(a.ImpactIn(m.l))))
			m.p("")
		}
		for _, q := range a.Evidence {
			if shows := a.ShowsIn(m.l, q); shows != "" {
				m.p("%s", m.l.T("md.example_shows", "Description", mdText(shows)))
				m.p("")
			}
			m.example(q)
			m.p(">")
			m.p("> — %s%s", m.conversationRef(r, q), m.unverified(q.Verified))
			m.p("")
		}
	}
	if len(r.FailedActions) > 0 {
		m.p("### %s", m.l.T("md.failed_actions"))
		m.p("")
		for _, f := range r.FailedActions {
			m.p("- [%s] %s: %s", TypeLabel(m.l, f.Type), mdText(f.ClusterTitle), mdText(f.Error))
		}
		m.p("")
	}
}

// example writes a quote, or the exchange it belongs to turn by turn: who said what
// (Readable, without Markdown's emphasis markers), a tool call named, not printed, and
// a tool's result, as it is, with the tool it came from.
func (m mdWriter) example(q Quote) {
	if len(q.Exchange) == 0 {
		m.quote(Readable(q.Quote))
		return
	}
	for i, line := range Lines(q.Exchange) {
		if i > 0 {
			m.p(">")
		}
		m.exchangeLine(line)
	}
}

// exchangeLine writes one line of an exchange: who, then what they said, called or
// returned; quotes of one turn in a row are written under one label, "…" between.
func (m mdWriter) exchangeLine(line []Evidence) {
	e := line[0]
	who := m.l.T("md.who_turn", "N", strconv.Itoa(e.Turn))
	if name := speakerName(m.l, e.Speaker); name != "" {
		who = m.l.T("md.who_speaker", "Name", name, "N", strconv.Itoa(e.Turn))
	}
	if e.Speaker == analyzer.SpeakerTool && e.Tool != "" {
		who = m.l.T("md.who_tool", "Name", speakerName(m.l, e.Speaker), "Tool", codeSpan(e.Tool), "N", strconv.Itoa(e.Turn))
	}
	if e.Speaker == analyzer.SpeakerCall {
		for i, c := range line {
			if i > 0 {
				m.p(">")
			}
			m.call(who, c)
		}
		return
	}
	var lines []string
	for i, e := range line {
		if i > 0 {
			lines = append(lines, "…")
		}
		said := e.Quote
		if e.Speaker != analyzer.SpeakerTool {
			said = Readable(said)
		}
		first := len(lines)
		for _, text := range strings.Split(strings.TrimSpace(lineEndings.Replace(said)), "\n") {
			if text = strings.TrimSpace(text); text != "" || len(lines) == first {
				lines = append(lines, codeSpan(text))
			}
		}
		if e.Continues {
			lines[len(lines)-1] += " …"
		}
	}
	lines[0] = m.l.T("md.said", "Who", who, "Quote", lines[0])
	// A line of a turn ends in a hard break (two spaces), so a Markdown viewer shows
	// the turn's lines as lines rather than running them into one paragraph.
	m.p("> %s", strings.Join(lines, "  \n> "))
}

// call writes a quoted tool call: by its name when the quote is the whole call, else
// the arguments quoted (what a retry changed), with the tool's name when known.
func (m mdWriter) call(who string, e Evidence) {
	args := codeSpan(strings.Join(strings.Fields(e.Quote), " "))
	if e.Continues {
		args += " …"
	}
	name, _, ok := strings.Cut(e.Quote, "(")
	whole := ok && name != "" && !strings.ContainsAny(name, " \t\r\n\"{:") // the quote is name(arguments)
	switch {
	case whole && e.SameAs > 0:
		m.p("> %s", m.l.T("md.calls_same", "Who", who, "Name", codeSpan(name), "Turn", strconv.Itoa(e.SameAs)))
	case whole:
		m.p("> %s", m.l.T("md.calls", "Who", who, "Name", codeSpan(name)))
	case e.Tool != "" && e.SameAs > 0:
		m.p("> %s", m.l.T("md.calls_tool_same", "Who", who, "Name", codeSpan(e.Tool), "Turn", strconv.Itoa(e.SameAs), "Args", args))
	case e.Tool != "":
		m.p("> %s", m.l.T("md.calls_tool_with", "Who", who, "Name", codeSpan(e.Tool), "Args", args))
	default:
		m.p("> %s", m.l.T("md.calls_with", "Who", who, "Args", args))
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
		line := fmt.Sprintf("- [%s] %s", TypeLabel(m.l, c.Type), mdText(c.TitleIn(m.l)))
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
	m.p("## %s", m.l.T("md.clusters"))
	m.p("")
	if labelled {
		m.p("%s", m.l.T("md.clusters_head_labelled"))
		m.p("|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
	} else {
		m.p("%s", m.l.T("md.clusters_head"))
		m.p("|---|---|---:|---:|---:|---|---:|")
	}
	for _, c := range cs {
		rank := "—"
		if c.ActionRank > 0 {
			rank = fmt.Sprintf("#%d", c.ActionRank)
		} else if why, _ := NoActionWords(m.l, c); why != "" {
			rank = m.l.T("md.no_action_rank", "Why", why)
		}
		split := ""
		if o := c.LabelOutcomes; labelled && o != nil && c.FailureLift != nil && c.QValue != nil {
			split = fmt.Sprintf(" %d / %d | %s | %s |", o.Failed, o.Succeeded, Lift(*c.FailureLift), PValue(*c.QValue))
		} else if labelled {
			split = " | | |"
		}
		title := mdText(c.TitleIn(m.l))
		if c.PolicyOverruled {
			if c.ExpectedReason != "" {
				title = m.l.T("md.overruled_because", "Title", title, "Reason", mdText(c.ExpectedReason))
			} else {
				title = m.l.T("md.overruled", "Title", title)
			}
		}
		m.p("| %s | %s | %d | %s |%s %d | %s | %s |", TypeLabel(m.l, c.Type), title, c.Conversations, Percent(c.Prevalence), split, c.FindingCount, mdText(RankWords(m.l, c.Support)), rank)
	}
	m.p("")
	m.issueNotes(cs)
}

// issueNotes explains, under the issues table, what its "Ranked by" column orders it
// by; each reason its Action column gives for an issue without an Action, once, in the
// order they first appear; and which policy sentence each issue the owner made an
// issue had been matched to.
func (m mdWriter) issueNotes(cs []Cluster) {
	seen := map[string]bool{}
	notes := []string{fmt.Sprintf("- *%s*: %s", mdText(m.l.T("clusters.ranked_by")), mdText(m.l.T("clusters.order")))}
	for _, c := range cs {
		if short, long := NoActionWords(m.l, c); short != "" && !seen[short] {
			seen[short] = true
			notes = append(notes, fmt.Sprintf("- *%s*: %s", mdText(short), mdText(long)))
		}
	}
	for _, c := range cs {
		if c.PolicyOverruled && len(c.Policies) > 0 {
			notes = append(notes, "- "+m.l.T("md.matched_policy", "Title", mdText(c.TitleIn(m.l)), "Policy", inlineQuote(c.Policies[0])))
		}
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
	line := m.l.T("md.scored_by", "Agent", mdText(f.Agent), "Version", digits(f.Version), "Trained", digits(f.TrainedOn),
		"Runs", m.count("md.runs", f.Runs), "AUROC", fmt.Sprintf("%.2f", f.CVAUROC),
		"Low", fmt.Sprintf("%.2f", f.CVInterval[0]), "High", fmt.Sprintf("%.2f", f.CVInterval[1]))
	for _, b := range f.Baselines {
		if b.Name == "messages" {
			line = m.l.T("md.then", "A", line, "B", m.l.T("md.messages_baseline", "AUROC", fmt.Sprintf("%.2f", b.AUROC)))
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
	m.p("## %s", m.l.T("md.drivers_heading"))
	m.p("")
	m.scoredBy(r)
	if !l.Any() {
		m.p("%s", m.l.T("md.no_labels", "Fields", mdText(LabelFields(m.l))))
		m.p("")
		return
	}
	m.p("%s", m.l.T("md.labels_read", "Field", codeSpan(l.Field), "Failed", digits(l.Failed), "Succeeded", digits(l.Succeeded), "Unlabelled", digits(l.Unlabelled)))
	m.p("")
	if c := r.LabelCheck; c != nil && c.AUROC != nil && c.FailedFlagged != nil && c.SucceededClean != nil {
		m.p("%s", m.l.T("md.label_check", "AUROC", fmt.Sprintf("%.2f", *c.AUROC), "Failed", Percent(*c.FailedFlagged), "Clean", Percent(*c.SucceededClean)))
		m.p("")
	}
	if len(r.Drivers) == 0 {
		m.p("%s", m.l.T("md.no_drivers"))
		m.p("")
		return
	}
	m.p("%s", m.l.T("md.drivers_head"))
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
			feature += m.l.T("md.driver_as_in", "Quote", quote, "Conversation", mdText(conversationName(w.ID, w.Seq)), "Turn", digits(w.Turn))
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
			m.p("## %s", m.l.T("md.expected_heading"))
			m.p("")
			m.p("%s", m.l.T("md.expected_intro"))
			m.p("")
			first = false
		}
		m.p("- %s — %s", mdText(c.TitleIn(m.l)), m.count("md.conversations", c.Conversations))
		if c.ExpectedBy != nil && *c.ExpectedBy == cluster.ExpectedByOwner {
			reason := m.l.T("md.no_reason")
			if c.ExpectedReason != "" {
				reason = inlineQuote(c.ExpectedReason)
			}
			m.p("  - %s", m.l.T("md.marked_by_owner", "Reason", reason))
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
	m.p("## %s", m.l.T("md.risk_heading"))
	m.p("")
	m.p("%s", m.l.T("md.risk_screened", "Screened", m.count("md.conversations", rs.Screened), "Flagged", digits(rs.Flagged), "Selected", digits(rs.Selected)))
	m.p("")
	for _, k := range rs.Kinds {
		m.p("- %s", m.l.T("md.risk_kind", "Kind", RiskKindNamed(m.l, k.Kind), "Conversations", m.count("md.conversations", k.Conversations), "Flags", m.count("md.flags", k.Flags)))
		for _, e := range k.Examples {
			m.p("  - %s", m.l.T("md.risk_example", "Conversation", mdText(conversationName(e.ConversationID, e.Seq)), "Turn", digits(e.Turn), "Quote", e.Marked(inlineQuote(e.Quote))))
		}
	}
	m.p("")
}

func (m mdWriter) population(r Report) {
	if len(r.Funnel) == 0 {
		return
	}
	m.p("## %s", m.l.T("md.population_heading"))
	m.p("")
	m.p("%s", m.l.T("md.population_head"))
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
	m.p("## %s", m.l.T("md.warnings"))
	m.p("")
	shown := 0
	for w, err := range r.AllWarnings() {
		if err != nil {
			return err
		}
		shown++
		scope := ""
		if s := w.ScopeIn(m.l); s != "" {
			scope = " (" + mdText(s) + ")"
		}
		m.p("- %s%s: %s", StageLabel(m.l, w.Stage), scope, mdText(w.MessageIn(m.l)))
	}
	if more := r.WarningCount - shown; more > 0 {
		m.p("- %s", m.l.T("md.more_warnings", "N", digits(more)))
	}
	m.p("")
	return nil
}

func (m mdWriter) about(r Report) {
	risks := m.l.T("md.risks_cover")
	switch waiting := r.WaitingIssues("RISK"); {
	case waiting == 1:
		risks = m.l.T("md.risks_cover_but_one")
	case waiting > 1:
		risks = m.l.T("md.risks_cover_but", "N", digits(waiting))
	}
	m.p("---")
	m.p("")
	m.p("%s", m.l.T("md.about", "Task", r.Task.ID, "Version", digits(r.SchemaVersion), "Risks", risks))
}

func (m mdWriter) analysisLabel(a Analysis) string {
	switch {
	case a.Analyzer == "":
		return m.l.T("md.analyzer_not_chosen")
	case a.Offline:
		return m.l.T("md.analyzer_offline")
	case a.Model != "":
		return mdText(m.l.T("md.analyzer_model", "Analyzer", cmpOr(a.Label, a.Analyzer), "Model", a.Model, "Prompt", a.PromptVersion))
	}
	return mdText(cmpOr(a.Label, a.Analyzer))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// count is message id in the plural form of n, which it writes as N, its digits
// without grouping.
func (m mdWriter) count(id string, n int) string {
	return m.l.T(id, "Count", n, "N", digits(n))
}

// digits is a whole number as report.md writes it, without grouping.
func digits[T ~int | ~int32 | ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }

func (m mdWriter) unverified(ok bool) string {
	if ok {
		return ""
	}
	return m.l.T("md.unverified")
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
func (m mdWriter) notChecked(t Task) string {
	if t.Terminal {
		return m.l.T("md.stopped_before_checks")
	}
	return m.l.T("md.checks_not_run")
}
