package offline

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/percent"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// WriteAction writes a cluster's Action from the template of its category (see
// playbookFor), filled with the cluster's figures and its first example: what
// happened, how often, an example quote with its conversation and turn, the steps to
// take, the expected impact and where the fix belongs. It costs nothing and is always
// first-pass valid. A cluster titled by another analyzer gets its title appended to the
// template's, so two clusters of one category never share an Action title.
func (a *Analyzer) WriteAction(ctx context.Context, brief analyzer.ClusterBrief) (analyzer.Result[analyzer.Action], error) {
	if err := ctx.Err(); err != nil {
		return analyzer.Result[analyzer.Action]{}, fmt.Errorf("offline: write action: %w", err)
	}
	pb := playbookFor(brief.Category, brief.Title)
	ref, quote := "", ""
	if len(brief.Examples) > 0 {
		ex := brief.Examples[0]
		ref = exampleRef(ex)
		quote = quoted(ex.Quote)
	}

	var problem strings.Builder
	fmt.Fprintf(&problem, "%s %s.", strings.TrimSuffix(brief.Title, "."), howOften(brief))
	if len(brief.Descriptions) > 0 {
		// A description cut short ends with "…" and its closing quote, then a stop,
		// so the example after it is a sentence of its own.
		fmt.Fprintf(&problem, " %s", textmatch.EndSentence(oneOfThem(textmatch.ClipText(brief.Descriptions[0], 300), brief.ConversationCount)))
	}
	if ref != "" {
		fmt.Fprintf(&problem, " Example: %s, %s.", ref, quote)
	}

	steps := pb.steps(factsOf(brief, quote))
	if ref != "" {
		test := cmp.Or(pb.test, "Add a regression test from %s: replay the conversation up to that turn and assert the corrected behavior.")
		steps = append(steps, fmt.Sprintf(test, ref))
	}
	title := pb.title
	if !isRuleTitle(brief.Title) && brief.Title != "" {
		// A cluster this analyzer did not title (the LLM's) shares its category's
		// template with others; its own title keeps the Actions apart.
		title = fmt.Sprintf("%s: %s", title, strings.TrimSuffix(brief.Title, "."))
	}
	return analyzer.Result[analyzer.Action]{
		Value: analyzer.Action{
			Title:          title,
			Problem:        problem.String(),
			Recommendation: steps,
			ExpectedImpact: fmt.Sprintf("%s This affects %s.", pb.impact, share(brief)),
			FixLocation:    pb.fix,
		},
		Pass: analyzer.PassFirst,
	}, nil
}

// toolCallQuote finds a tool call quoted as name(arguments), as analyzer.TurnText
// renders it.
var toolCallQuote = regexp.MustCompile(`(?m)^([A-Za-z_][A-Za-z0-9_.\-]*)\(`)

// calledTool finds a tool a description says the agent called ("the agent called
// book_reservation at turn 17"): the examples may quote the user's words around it.
var calledTool = regexp.MustCompile(`\bcalled ([A-Za-z][A-Za-z0-9]*(?:[_.\-][A-Za-z0-9]+)+)`)

// askedField finds the field an unapplied write's description names ("asked for cabin
// “economy”").
var askedField = regexp.MustCompile(`asked for (\S+) “`)

// factsOf gathers what a template is filled with from the cluster's own evidence: the
// tools its quotes call or its descriptions say were called, and the fields its
// descriptions name, in order of first sight.
func factsOf(brief analyzer.ClusterBrief, example string) facts {
	f := facts{example: example, tools: "the tool", fields: "every field you set"}
	var tools, fields []string
	for _, ex := range brief.Examples {
		for _, m := range toolCallQuote.FindAllStringSubmatch(ex.Quote, -1) {
			if !slices.Contains(tools, m[1]) {
				tools = append(tools, m[1])
			}
		}
	}
	for _, d := range brief.Descriptions {
		for _, m := range calledTool.FindAllStringSubmatch(d, -1) {
			if !slices.Contains(tools, m[1]) {
				tools = append(tools, m[1])
			}
		}
		for _, m := range askedField.FindAllStringSubmatch(d, -1) {
			if !slices.Contains(fields, m[1]) {
				fields = append(fields, m[1])
			}
		}
	}
	if len(tools) > 0 {
		f.tools = andList(tools[:min(len(tools), 3)])
	}
	if len(fields) > 0 {
		f.fields = andList(fields[:min(len(fields), 3)])
	}
	return f
}

// andList joins names as "a", "a and b" or "a, b and c".
func andList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// howOften says how often a cluster occurs: "in 23 of 92 analysed conversations (25%)".
func howOften(b analyzer.ClusterBrief) string {
	return "in " + share(b)
}

func share(b analyzer.ClusterBrief) string {
	if b.AnalysedCount <= 0 {
		return fmt.Sprintf("%d conversations", b.ConversationCount)
	}
	return fmt.Sprintf("%d of %d analyzed conversations (%s)", b.ConversationCount, b.AnalysedCount,
		percent.Of(b.ConversationCount, b.AnalysedCount))
}

// oneOfThem introduces a finding's description in its cluster's Action: it tells of one
// conversation ("3 of 16 tool calls failed"), so in a cluster of several it is said to
// be one of them, never presented as the cluster's own figure.
func oneOfThem(desc string, conversations int) string {
	if conversations <= 1 || desc == "" {
		return desc
	}
	first, size := utf8.DecodeRuneInString(desc)
	if second, _ := utf8.DecodeRuneInString(desc[size:]); unicode.IsUpper(first) && unicode.IsLower(second) {
		desc = string(unicode.ToLower(first)) + desc[size:]
	}
	return "In one of them, " + desc
}

// exampleRef names an example's place: "conversation airline-task00-trial0, turn 22".
func exampleRef(ex analyzer.Example) string {
	id := ex.ConversationID
	if id == "" {
		id = fmt.Sprintf("#%d", ex.Seq)
	}
	if ex.Turn > 0 {
		return fmt.Sprintf("conversation %s, turn %d", id, ex.Turn)
	}
	return "conversation " + id
}

// isRuleTitle reports whether a cluster title is one of the offline rules' titles,
// each of which has an Action title of its own.
func isRuleTitle(title string) bool {
	for r := ruleFalseSuccess; r <= ruleLong; r++ {
		if r.spec().title == title {
			return true
		}
	}
	return false
}
