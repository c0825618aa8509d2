package offline

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

func brief(category, title string) analyzer.ClusterBrief {
	return analyzer.ClusterBrief{
		Type: analyzer.TypeRisk, Category: category, Title: title,
		Descriptions:      []string{"book_reservation failed at turn 22, yet at turn 23 the agent told the user it had succeeded."},
		ConversationCount: 23, AnalysedCount: 92, Severity: 5, Confidence: 0.7, PriorityScore: 70,
		Examples: []analyzer.Example{{ConversationID: "airline-task00-trial1", Seq: 2, Turn: 23, Quote: "Your reservation has been successfully booked.", FindingTitle: title}},
	}
}

func TestWriteAction(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	r, err := a.WriteAction(context.Background(), brief("false_success_claim", "Agent claims success after a failed tool call"))
	require.NoError(t, err)
	require.Equal(t, analyzer.PassFirst, r.Pass)
	require.Equal(t, analyzer.Usage{}, r.Usage)
	act := r.Value
	require.Equal(t, "Make the agent check tool results before confirming success", act.Title)
	require.Equal(t, "prompt", act.FixLocation)
	require.Equal(t, "Agent claims success after a failed tool call in 23 of 92 analyzed conversations (25%). "+
		"In one of them, book_reservation failed at turn 22, yet at turn 23 the agent told the user it had succeeded. "+
		"Example: conversation airline-task00-trial1, turn 23, “Your reservation has been successfully booked.”", act.Problem)
	require.Len(t, act.Recommendation, 3)
	require.Contains(t, act.Recommendation[0], "Add to the system prompt")
	require.Equal(t, "Add a regression test from conversation airline-task00-trial1, turn 23: replay the conversation up to that turn and assert the corrected behavior.",
		act.Recommendation[2])
	require.True(t, strings.HasSuffix(act.ExpectedImpact, "This affects 23 of 92 analyzed conversations (25%)."))
}

// TestToolErrorActionSaysWhoseCountItIs: a tool-error cluster's description counts the
// calls of one conversation; the Action says so instead of presenting it as the
// cluster's, and a cluster of one conversation keeps it as it is.
func TestToolErrorActionSaysWhoseCountItIs(t *testing.T) {
	t.Parallel()
	b := brief("tool_error", ruleToolError.spec().title)
	b.ConversationCount = 29
	b.Descriptions = []string{"1 of 9 tool calls failed: get_plan at turn 4 (“Error: not found”)."}
	r, err := New(Options{}).WriteAction(context.Background(), b)
	require.NoError(t, err)
	require.Contains(t, r.Value.Problem, "in 29 of 92 analyzed conversations (32%). In one of them, 1 of 9 tool calls failed: get_plan")
	b.ConversationCount = 1
	r, err = New(Options{}).WriteAction(context.Background(), b)
	require.NoError(t, err)
	require.Contains(t, r.Value.Problem, "(1.1%). 1 of 9 tool calls failed: get_plan")
	require.Equal(t, "In one of them, the agent repeats itself.", oneOfThem("The agent repeats itself.", 2))
	require.Equal(t, "In one of them, API calls time out.", oneOfThem("API calls time out.", 2))
}

// TestToolErrorActionSaysWhoseFixItIs: errors the tool returned are fixed in the tool;
// calls the tool turned down are fixed in what the agent is told, in either language.
func TestToolErrorActionSaysWhoseFixItIs(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	fault, err := a.WriteAction(context.Background(), brief("tool_error", ruleToolError.spec().title))
	require.NoError(t, err)
	require.Equal(t, "tool", fault.Value.FixLocation)
	require.Equal(t, "Fix the tool calls that fail most often", fault.Value.Title)
	rejected, err := a.WriteAction(context.Background(), brief("tool_error", ruleToolRejected.spec().title))
	require.NoError(t, err)
	require.Equal(t, "prompt", rejected.Value.FixLocation)
	require.Equal(t, "Teach the agent the rules its tools enforce", rejected.Value.Title)
	require.Contains(t, rejected.Value.Recommendation[0], "not the tool breaking")
	require.Equal(t, "教智能体遵守工具的规则", localetest.Chinese(t).Text(rejected.Value.Words.Title))
	require.Contains(t, localetest.Chinese(t).Text(rejected.Value.Words.Recommendation[0]), "而不是工具本身坏了")
}

func TestWriteActionEveryCategory(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	titlesSeen := map[string]bool{}
	for _, cat := range analyzer.Categories() {
		for _, title := range []string{"Some cluster", ruleAbusiveAgent.spec().title, ruleRepeatedMessage.spec().title, ruleHumanIgnored.spec().title} {
			r, err := a.WriteAction(context.Background(), brief(cat, title))
			require.NoError(t, err)
			act := r.Value
			require.NotEmpty(t, act.Title, cat)
			require.Contains(t, analyzer.FixLocations(), act.FixLocation, cat)
			require.NotEmpty(t, act.Problem)
			require.NotEmpty(t, act.ExpectedImpact)
			require.GreaterOrEqual(t, len(act.Recommendation), 2, cat)
			for _, step := range act.Recommendation {
				require.NotEmpty(t, step)
			}
			titlesSeen[act.Title] = true
		}
	}
	require.Greater(t, len(titlesSeen), 15, "categories get their own Action titles")

	// Variants of one category are told apart by the cluster title.
	looping, _ := a.WriteAction(context.Background(), brief("repetition", ruleRetryFailing.spec().title))
	echo, _ := a.WriteAction(context.Background(), brief("repetition", ruleRepeatedMessage.spec().title))
	require.NotEqual(t, looping.Value.Title, echo.Value.Title)
}

// TestWriteActionTitlesAreDistinct: every offline rule's cluster gets an Action title
// of its own, and clusters titled by the LLM keep theirs in the Action title.
func TestWriteActionTitlesAreDistinct(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	seen := map[string]ruleID{}
	for r := ruleFalseSuccess; r <= ruleLong; r++ {
		if r.expected() {
			continue // expected behaviour never becomes an Action
		}
		act, err := a.WriteAction(context.Background(), brief(r.spec().category, r.spec().title))
		require.NoError(t, err)
		if strings.HasPrefix(act.Value.Recommendation[0], "Add to the system prompt") {
			require.Contains(t, []string{"prompt", "policy"}, act.Value.FixLocation, "%q: where to fix is where its first step fixes", act.Value.Title)
		}
		prev, dup := seen[act.Value.Title]
		require.False(t, dup, "rules %d and %d share the Action title %q", prev, r, act.Value.Title)
		seen[act.Value.Title] = r
	}
	require.Equal(t, "Answer the user before the conversation ends", actionTitle(t, a, ruleUnanswered))
	require.Equal(t, "Finish the user's request before they leave", actionTitle(t, a, ruleAbandoned))

	x, err := a.WriteAction(context.Background(), brief("tool_error", "Search tool times out."))
	require.NoError(t, err)
	require.Equal(t, "Fix the tool calls that fail most often: Search tool times out", x.Value.Title)
}

func actionTitle(t *testing.T, a *Analyzer, r ruleID) string {
	t.Helper()
	act, err := a.WriteAction(context.Background(), brief(r.spec().category, r.spec().title))
	require.NoError(t, err)
	return act.Value.Title
}

// TestWriteActionLongConversationTest: the regression step of a long conversation
// asks for fewer turns, not a replay up to the quoted turn.
func TestWriteActionLongConversationTest(t *testing.T) {
	t.Parallel()
	act, err := New(Options{}).WriteAction(context.Background(), brief("long_conversation", ruleLong.spec().title))
	require.NoError(t, err)
	last := act.Value.Recommendation[len(act.Value.Recommendation)-1]
	require.Equal(t, "Add a regression test from conversation airline-task00-trial1, turn 23: replay the user's side of the conversation and assert the agent reaches the outcome in far fewer turns.", last)
}

func TestWriteActionWithoutExamplesOrPopulation(t *testing.T) {
	t.Parallel()
	b := analyzer.ClusterBrief{Type: analyzer.TypeAction, Category: "tool_error", Title: "Tool call returns an error", ConversationCount: 4}
	r, err := New(Options{}).WriteAction(context.Background(), b)
	require.NoError(t, err)
	require.Equal(t, "Tool call returns an error in 4 conversations.", r.Value.Problem)
	require.Contains(t, r.Value.Recommendation[0], "the examples of this cluster")
	require.Len(t, r.Value.Recommendation, 3, "no regression-test step without an example")
}

func TestWriteActionHonoursContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(Options{}).WriteAction(ctx, brief("tool_error", "x"))
	require.ErrorIs(t, err, context.Canceled)
}

// TestActionTextsSpeakOfTheClustersOwnTools: templates are filled with the tools and
// fields the cluster's evidence names, so an Action reads right for any agent.
func TestActionTextsSpeakOfTheClustersOwnTools(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	b := brief("unconfirmed_write", ruleUnconfirmedWrite.spec().title)
	b.Examples = []analyzer.Example{{ConversationID: "c1", Seq: 1, Turn: 5, Quote: `return_items({"order_id":"#W1"})`}}
	r, err := a.WriteAction(context.Background(), b)
	require.NoError(t, err)
	require.Contains(t, strings.Join(r.Value.Recommendation, " "), "Before calling return_items, list the exact details")
	// The examples quote the user's words around the write; the description names it.
	b.Examples = []analyzer.Example{{ConversationID: "c1", Seq: 1, Turn: 4, Quote: "PayPal, please."}}
	b.Descriptions = []string{"The agent called cancel_order at turn 5, a change the user had neither asked for nor agreed to. It was called again later."}
	r, err = a.WriteAction(context.Background(), b)
	require.NoError(t, err)
	require.Contains(t, strings.Join(r.Value.Recommendation, " "), "Before calling cancel_order, list the exact details", "not “called again”")

	b = brief("false_success_claim", ruleUnappliedClaim.spec().title)
	b.Descriptions = []string{"update_plan at turn 9 asked for tier “gold”, but its result at turn 10 reports tier “silver”; at turn 11 the agent told the user the change was done."}
	b.Examples = []analyzer.Example{{ConversationID: "c2", Seq: 2, Turn: 10, Quote: `"tier": "silver"`}, {ConversationID: "c2", Seq: 2, Turn: 9, Quote: `update_plan({"tier":"gold"})`}}
	r, err = a.WriteAction(context.Background(), b)
	require.NoError(t, err)
	steps := strings.Join(r.Value.Recommendation, " ")
	require.Contains(t, steps, "compare the record update_plan returns with what you asked for (tier)")
	require.NotContains(t, strings.ToLower(steps+r.Value.ExpectedImpact), "flight")

	// A cluster of changes retried with other details after the user had agreed asks
	// for a new yes first, and is titled so.
	b = brief("unconfirmed_write", ruleUnconfirmedWrite.spec().title)
	b.Descriptions = []string{"After update_items failed at turn 32, the agent called update_items again at turn 33 with a different item argument, without asking the user."}
	b.DescriptionTexts = []locale.Text{locale.Msg("finding.write_retried", "Failed", locale.Lit("update_items"), "Turn", locale.Lit("32"),
		"Quote", locale.Lit("“Error”"), "Tool", locale.Lit("update_items"), "Again", locale.Lit("33"), "Changed", locale.Lit("item"))}
	r, err = a.WriteAction(context.Background(), b)
	require.NoError(t, err)
	require.Equal(t, "Ask again before retrying a change with other details", r.Value.Title)
	require.True(t, strings.HasPrefix(r.Value.Recommendation[0], "Add to the system prompt, beside its rule on confirmation: “When a change fails, a retry with other details"), r.Value.Recommendation[0])
	require.NotContains(t, strings.Join(r.Value.Recommendation, " "), "Act only on an explicit yes", "not the rule the policy has already")
	require.Equal(t, "更换细节重试修改之前，先再次征得用户同意", localetest.Chinese(t).Text(r.Value.Words.Title))
	// Its tool-layer step holds back only a retry with other details: one that refused
	// every call without a fresh yes would block the retry the user agreed to.
	last := r.Value.Recommendation[1]
	require.Contains(t, last, "refuse a retry with other details until the user has agreed to them")
	require.NotContains(t, last, "unless the user's last turn")
	require.Contains(t, localetest.Chinese(t).Text(r.Value.Words.Recommendation[1]), "换了细节的重试要等用户同意新的细节才放行")

	// A rejection of a record the agent's own change had locked adds the step about
	// the order of changes; other rejections do not.
	b = brief("tool_error", ruleToolRejected.spec().title)
	rejected := locale.Msg("finding.tool_calls_failed", "Calls", locale.Lit("1 of 8 tool calls"), "Parts", locale.Lit("return_items at turn 32"))
	locked := locale.Join("join.sentences", rejected, locale.Msg("finding.own_change_before", "Key", locale.Lit("order_id"), "Value", locale.Lit("“#W1”"),
		"Tool", locale.Lit("exchange_items"), "Turn", locale.Lit("25"), "Was", locale.Lit("“delivered”"), "Status", locale.Lit("“exchange requested”")))
	b.DescriptionTexts = []locale.Text{rejected}
	r, err = a.WriteAction(context.Background(), b)
	require.NoError(t, err)
	require.NotContains(t, strings.Join(r.Value.Recommendation, " "), "gather every change")
	b.DescriptionTexts = []locale.Text{rejected, locked}
	r, err = a.WriteAction(context.Background(), b)
	require.NoError(t, err)
	require.Contains(t, strings.Join(r.Value.Recommendation, " "), "have it gather every change the user wants to that record first")
	var zhSteps []string
	for _, s := range r.Value.Words.Recommendation {
		zhSteps = append(zhSteps, localetest.Chinese(t).Text(s))
	}
	require.Contains(t, strings.Join(zhSteps, " "), "让它先收集用户对这条记录想做的全部修改")

	// A tool that took the change but kept the field is named in the title, in either language.
	b = brief("tool_error", ruleKeptField.spec().title)
	b.Descriptions = []string{"update_plan at turn 9 asked for tier “gold”; its result at turn 10 changed price yet still reports tier “silver”, as the record read at turn 4 had it."}
	r, err = a.WriteAction(context.Background(), b)
	require.NoError(t, err)
	require.Equal(t, "Make update_plan store the tier it is asked to change", r.Value.Title)
	require.Equal(t, "tool", r.Value.FixLocation)
	require.Equal(t, "让 update_plan 保存请求修改的 tier", localetest.Chinese(t).Text(r.Value.Words.Title))
	require.Contains(t, r.Value.Recommendation[0], "Check update_plan: it changes the rest of the record (prices, payments) but keeps the old tier.")
}

// A description clipped inside a quote (only a model's is longer than maxDescription)
// ends the Action's sentence with "…", the closing quote and a stop before the
// example: it never runs into "Example:".
func TestActionClipsADescriptionInsideAQuote(t *testing.T) {
	t.Parallel()
	b := brief("unconfirmed_write", ruleUnconfirmedWrite.spec().title)
	b.Descriptions = []string{"After update_items failed at turn 32 (“Error: balance is not enough”), the agent called update_items again at turn 33 with changed arguments without asking the user. " +
		"The user's last words before it were “Yes, please proceed. " + strings.Repeat("Also, I'd like to use my gift card for the remaining balance and keep the other method for anything left over. ", 5) + "”."}
	r, err := New(Options{}).WriteAction(context.Background(), b)
	require.NoError(t, err)
	require.Regexp(t, `The user's last words before it were “Yes, please proceed\. [^“”]*[^ ]…”\. Example: conversation airline-task00-trial1, turn 23, `, r.Value.Problem)
}

// The Action's problem says a rule's description whole, in English as in Chinese:
// neither language says more than the other.
func TestActionProblemSaysTheWholeDescriptionInBothLanguages(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	d := diagnose(t, a, sys(testPolicy), u("Change my flight to HAT002 and my seat to 12A, and use the card ending in 4242 for any difference in fare, please."),
		as("Changing to HAT002, seat 12A, paid with the card ending in 4242. Shall I go ahead?"),
		u("Yes, please go ahead with exactly those changes to my reservation, as long as the fare difference goes on the card ending in 4242 and nothing else."),
		toolCall("c1", "update_reservation", `{"flight":"HAT002","seat":"12A","payment":"card_4242"}`), res("c1", "Error: the payment method card_4242 was declined by the bank"),
		toolCall("c2", "update_reservation", `{"flight":"HAT002","seat":"12A","payment":"gift_card_7"}`), res("c2", `{"flight":"HAT002","seat":"12A"}`),
		as("Done: HAT002, seat 12A."), u("Thanks"))
	f := only(d, "unconfirmed_write")
	require.Len(t, f, 1)
	require.Greater(t, utf8.RuneCountInString(f[0].Description), 300, "long enough to have been cut before")
	b := brief("unconfirmed_write", f[0].Title)
	b.Descriptions, b.DescriptionTexts = []string{f[0].Description}, []locale.Text{f[0].Words.Description}
	r, err := a.WriteAction(context.Background(), b)
	require.NoError(t, err)
	require.Contains(t, r.Value.Problem, f[0].Description[1:len(f[0].Description)-1], "whole, its first letter lowered after \"In one of them\"")
	zh := localetest.Chinese(t).Text(r.Value.Words.Problem)
	require.Contains(t, zh, strings.TrimSuffix(localetest.Chinese(t).Text(f[0].Words.Description), "。"))
}
