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

	"github.com/checkup-dev/checkup/db/locale"
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
	if err := cmp.Or(ctx.Err(), a.enErr); err != nil {
		return analyzer.Result[analyzer.Action]{}, fmt.Errorf("offline: write action: %w", err)
	}
	pb := playbookFor(brief.Category, brief.Title)
	var ref, quote locale.Text
	if len(brief.Examples) > 0 {
		ex := brief.Examples[0]
		ref = exampleRef(ex)
		quote = locale.Lit(quoted(ex.Quote))
	}

	// The problem says the first description whole, in English as the run stored it,
	// in the catalog's words by the description's own message: both languages say the
	// same. Only a model's description can be longer than maxDescription, which the
	// rules' are held to (finding); it is cut there.
	head := locale.Msg("written.problem", "Title", clusterTitle(brief), "Often", howOften(brief))
	english, words := []locale.Text{head}, []locale.Text{head}
	if len(brief.Descriptions) > 0 {
		// A description cut short ends with "…" and its closing quote, then a stop,
		// so the example after it is a sentence of its own.
		desc := textmatch.EndSentence(oneOfThem(textmatch.ClipText(brief.Descriptions[0], maxDescription), brief.ConversationCount))
		english = append(english, locale.Lit(desc))
		words = append(words, locale.Lit(desc))
		if len(brief.DescriptionTexts) > 0 && !brief.DescriptionTexts[0].IsZero() {
			words[len(words)-1] = oneOfThemText(brief.DescriptionTexts[0], brief.ConversationCount)
		}
	}
	if !ref.IsZero() {
		example := locale.Msg("written.example", "Ref", ref, "Quote", quote)
		english, words = append(english, example), append(words, example)
	}

	facts := factsOf(brief, quote)
	steps := pb.steps(pb.name, facts)
	if !ref.IsZero() {
		test := locale.Msg("written.test", "Ref", ref)
		if pb.test {
			test = locale.Msg("playbook."+pb.name+".test", "Ref", ref)
		}
		steps = append(steps, test)
	}
	title := pb.title(facts)
	if !isRuleTitle(brief.Title) && brief.Title != "" {
		// A cluster this analyzer did not title (the LLM's) shares its category's
		// template with others; its own title keeps the Actions apart.
		title = locale.Msg("written.title_of", "Title", title, "Issue", strings.TrimSuffix(brief.Title, "."))
	}
	impact := locale.Msg("written.impact", "Impact", pb.impact(facts), "Share", share(brief))
	recommendation := make([]string, len(steps))
	for i, s := range steps {
		recommendation[i] = a.en.Text(s)
	}
	return analyzer.Result[analyzer.Action]{
		Value: analyzer.Action{
			Title:          a.en.Text(title),
			Problem:        a.en.Text(locale.Sentences(english...)),
			Recommendation: recommendation,
			ExpectedImpact: a.en.Text(impact),
			FixLocation:    pb.fix,
			Words: &analyzer.ActionWords{Title: title, Problem: locale.Sentences(words...),
				Recommendation: steps, ExpectedImpact: impact},
		},
		Pass: analyzer.PassFirst,
	}, nil
}

// clusterTitle is the cluster's title as its Action's problem opens with it: the
// title's message where its findings keep one, else its words without a closing stop.
func clusterTitle(b analyzer.ClusterBrief) locale.Text {
	if !b.TitleText.IsZero() {
		return b.TitleText
	}
	return locale.Lit(strings.TrimSuffix(b.Title, "."))
}

// toolCallQuote finds a tool call quoted as name(arguments), as analyzer.TurnText
// renders it.
var toolCallQuote = regexp.MustCompile(`(?m)^([A-Za-z_][A-Za-z0-9_.\-]*)\(`)

// calledTool finds a tool a description says the agent called ("the agent called
// book_reservation at turn 17"): the examples may quote the user's words around it.
var calledTool = regexp.MustCompile(`\bcalled ([A-Za-z][A-Za-z0-9]*(?:[_.\-][A-Za-z0-9]+)+)`)

// askedField finds the write and the field an unapplied write's description names
// ("update_reservation_flights at turn 15 asked for cabin “economy”").
var askedField = regexp.MustCompile(`([A-Za-z][A-Za-z0-9]*(?:[_.\-][A-Za-z0-9]+)+) at turn \d+ asked for (\S+) “`)

// factsOf gathers what a template is filled with from the cluster's own evidence: the
// tools its quotes call or its descriptions say were called, and the fields its
// descriptions name, in order of first sight.
func factsOf(brief analyzer.ClusterBrief, example locale.Text) facts {
	f := facts{example: example, tools: locale.Msg("written.the_tool"), fields: locale.Msg("written.every_field")}
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
			if !slices.Contains(tools, m[1]) {
				tools = append(tools, m[1])
			}
			if !slices.Contains(fields, m[2]) {
				fields = append(fields, m[2])
			}
		}
	}
	if len(tools) > 0 {
		f.tools = andList(tools[:min(len(tools), 3)])
	}
	f.noAccount = allSay(brief, "finding.unauthenticated_no_account")
	f.retried = allSay(brief, "finding.write_retried")
	f.ownChange = anySays(brief, "finding.own_change_before")
	if len(fields) > 0 {
		f.fields = andList(fields[:min(len(fields), 3)])
	}
	return f
}

// allSay reports whether every description of the brief says the catalog sentence id.
func allSay(brief analyzer.ClusterBrief, id string) bool {
	return len(brief.DescriptionTexts) > 0 && !slices.ContainsFunc(brief.DescriptionTexts, func(t locale.Text) bool {
		return !slices.Contains(t.MessageIDs(), id)
	})
}

// anySays reports whether a description of the brief says the catalog sentence id.
func anySays(brief analyzer.ClusterBrief, id string) bool {
	return slices.ContainsFunc(brief.DescriptionTexts, func(t locale.Text) bool { return slices.Contains(t.MessageIDs(), id) })
}

// andList joins names as "a", "a and b" or "a, b and c" (in Chinese "a、b和c").
func andList(names []string) locale.Text {
	items := make([]locale.Text, len(names))
	for i, n := range names {
		items[i] = locale.Lit(n)
	}
	return locale.List(items...)
}

// howOften says how often a cluster occurs: "in 23 of 92 analysed conversations (25%)".
func howOften(b analyzer.ClusterBrief) locale.Text {
	return locale.Msg("written.in", "Share", share(b))
}

func share(b analyzer.ClusterBrief) locale.Text {
	if b.AnalysedCount <= 0 {
		return locale.Msg("written.conversations", "N", digits(b.ConversationCount))
	}
	return locale.Msg("written.share", "N", digits(b.ConversationCount), "Of", digits(b.AnalysedCount),
		"Percent", percent.Of(b.ConversationCount, b.AnalysedCount))
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

// oneOfThemText is oneOfThem for a description kept as a catalog message.
func oneOfThemText(desc locale.Text, conversations int) locale.Text {
	if conversations <= 1 {
		return desc
	}
	return locale.Msg("written.one_of_them", "Description", locale.LowerFirst(desc))
}

// exampleRef names an example's place: "conversation airline-task00-trial0, turn 22".
func exampleRef(ex analyzer.Example) locale.Text {
	id := ex.ConversationID
	if id == "" {
		id = fmt.Sprintf("#%d", ex.Seq)
	}
	if ex.Turn > 0 {
		return locale.Msg("written.ref_turn", "ID", id, "Turn", digits(ex.Turn))
	}
	return locale.Msg("written.ref", "ID", id)
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
