package components_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/views/components"
)

func renderText(t *testing.T, c templ.Component, testid string) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, c.Render(locale.NewContext(context.Background(), english(t)), &buf))
	doc, err := goquery.NewDocumentFromReader(&buf)
	require.NoError(t, err)
	return strings.Join(strings.Fields(doc.Find(`[data-testid="`+testid+`"]`).Text()), " ")
}

// The labels' sentence ends at its last word, not at a space before the stop.
func TestLabelsSentenceHasNoSpaceBeforeItsStop(t *testing.T) {
	t.Parallel()
	r := report.Report{Population: report.Population{Labelled: report.Labelled{Field: "metadata.success", Failed: 69, Succeeded: 31}}}
	require.Equal(t, "Outcome labels read from metadata.success: 69 failed, 31 succeeded.", renderText(t, components.Outcomes("t", r), "labels"))
	r.Population.Labelled.Unlabelled = 7
	require.Equal(t, "Outcome labels read from metadata.success: 69 failed, 31 succeeded, 7 without a label.", renderText(t, components.Outcomes("t", r), "labels"))
}

// An Action's failures beyond its share are counted in words: one failure, and none
// rather than a negative figure.
func TestActionOutcomesSayHowManyFailuresInWords(t *testing.T) {
	t.Parallel()
	in, out, q := 0.67, 0.69, 1.0
	for excess, want := range map[float64]string{4.4: "it explains 4.4 failures beyond", 1: "it explains 1 failure beyond", -0.4: "it explains no failures beyond"} {
		a := report.Action{Rank: 1, Title: "T", Conversations: 15, OutcomeSplit: report.OutcomeSplit{
			LabelOutcomes: &report.LabelOutcomes{Failed: 10, Succeeded: 5}, FailureRateIn: &in, FailureRateOut: &out, ExcessFailures: &excess, QValue: &q}}
		require.Contains(t, renderText(t, components.ActionCard("t", a, true), "action-outcomes"), want)
	}
}

// A failure driver of kind category is named by the category's label, not its code,
// in the drivers' table and chart.
func TestCategoryDriverIsNamedInWords(t *testing.T) {
	t.Parallel()
	ds := []report.Driver{{Kind: "category", Feature: "long_conversation", Failed: 9, Succeeded: 1, RateWith: 0.9, RateWithout: 0.6, Lift: 1.3, QValue: 0.01}}
	require.Equal(t, "finding: Long conversation", components.DriverChart(english(t), ds).Rows[0].Label)
	r := report.Report{Population: report.Population{Labelled: report.Labelled{Field: "success", Failed: 60, Succeeded: 40}}, Drivers: ds}
	text := renderText(t, components.Outcomes("t", r), "outcomes")
	require.Contains(t, text, "finding Long conversation")
	require.NotContains(t, text, "long_conversation")
}

// A word driver shows where its first example writes it, linked to that turn, and the
// quote is escaped like every text of a conversation.
func TestWordDriverShowsWhereItIsWritten(t *testing.T) {
	t.Parallel()
	ds := []report.Driver{{Kind: "agent_words", Feature: "date", Failed: 36, Succeeded: 3, RateWith: 0.92, RateWithout: 0.54, Lift: 1.3, QValue: 0.02,
		Written: &report.DriverQuote{Ref: report.Ref{Seq: 4, ID: "c4"}, Turn: 5, Quote: "Please give the <b>date</b> of birth."}}}
	r := report.Report{Population: report.Population{Labelled: report.Labelled{Field: "success", Failed: 60, Succeeded: 40}}, Drivers: ds}
	var buf bytes.Buffer
	require.NoError(t, components.Outcomes("t1", r).Render(locale.NewContext(context.Background(), english(t)), &buf))
	doc, err := goquery.NewDocumentFromReader(&buf)
	require.NoError(t, err)
	written := doc.Find(`[data-testid="driver-written"]`)
	require.Equal(t, "as in “Please give the <b>date</b> of birth.”", written.Text())
	require.Equal(t, string(components.ConversationURL("t1", 4, 5)), written.Find("a").AttrOr("href", ""))
	require.Zero(t, written.Find("b").Length(), "the quote's markup is text")
}

// A risk example cut out of its turn mid-sentence shows an ellipsis where it was cut.
func TestRiskExampleShowsWhereItWasCut(t *testing.T) {
	t.Parallel()
	rs := &report.RiskSummary{Screened: 2, Flagged: 1, Selected: 2, Kinds: []report.RiskKind{{Kind: "refusal", Conversations: 1, Flags: 1,
		Examples: []report.RiskExample{{ConversationID: "c1", Seq: 1, Turn: 3, Quote: "I'm unable to change it. If you", CutAfter: true}}}}}
	require.Equal(t, "I'm unable to change it. If you…", renderText(t, components.RiskSummary("t", rs), "risk-quote"))
}

// An Action's size is the link to its conversations, said once ("15 conversations"),
// not again as "(all 15)".
func TestActionSizeIsTheLinkToItsConversations(t *testing.T) {
	t.Parallel()
	a := report.Action{Rank: 1, Title: "T", ClusterIdx: 3, Conversations: 15, Share: 0.15}
	require.True(t, strings.HasPrefix(renderText(t, components.ActionCard("t1", a, true), "action-size"), "15 conversations — 15% of the analyzed conversations"))
	var buf bytes.Buffer
	require.NoError(t, components.ActionCard("t1", a, true).Render(locale.NewContext(context.Background(), english(t)), &buf))
	doc, err := goquery.NewDocumentFromReader(&buf)
	require.NoError(t, err)
	link := doc.Find(`[data-testid="action-conversations"]`)
	require.Equal(t, "15 conversations", link.Text())
	require.Equal(t, string(components.ClusterConversationsURL("t1", 3)), link.AttrOr("href", ""))
}

// What the owner said of an issue the policy seemed to call for ends with one full
// stop, whether the reason and the policy sentence quoted end with one or not.
func TestOverruledIssueEndsItsSentencesOnce(t *testing.T) {
	t.Parallel()
	for reason, want := range map[string]string{
		"Handoffs cost us money.": "You said this is not expected: Handoffs cost us money. It had been matched to the policy sentence Hand off when asked.",
		"It may answer":           "You said this is not expected: It may answer. It had been matched to the policy sentence Hand off when asked.",
	} {
		c := report.Cluster{Idx: 3, Type: "ACTION", Title: "Agent hands off as its policy says", Conversations: 4,
			PolicyOverruled: true, ExpectedReason: reason, Policies: []string{"Hand off when asked."}}
		require.Equal(t, want, renderText(t, components.Clusters([]report.Cluster{c}, components.Review{TaskID: "t"}), "overruled"))
		c.Policies = append(c.Policies, "Never promise a refund")
		require.Contains(t, renderText(t, components.Clusters([]report.Cluster{c}, components.Review{TaskID: "t"}), "overruled"),
			"the policy sentence Hand off when asked. and 1 other.")
	}
}

// A conversation's page shows what the agent said without Markdown's emphasis markers,
// its quote still marked, and a tool's output as stored.
func TestTranscriptReadsWithoutMarkdownEmphasis(t *testing.T) {
	t.Parallel()
	turns := []components.Turn{
		{N: 1, Message: transcript.Message{Role: transcript.RoleTool, Content: `{"note": "**raw**"}`}},
		{N: 2, Message: transcript.Message{Role: transcript.RoleAssistant, Content: "Booked. **Reservation ID:** JG7FMM"}, Evidence: true, Quotes: []string{"Booked."}},
	}
	var buf bytes.Buffer
	require.NoError(t, components.Transcript(turns).Render(locale.NewContext(context.Background(), english(t)), &buf))
	doc, err := goquery.NewDocumentFromReader(&buf)
	require.NoError(t, err)
	require.Equal(t, "Booked. Reservation ID: JG7FMM", strings.TrimSpace(doc.Find(`#turn-2 .text`).Text()))
	require.Equal(t, "Booked.", doc.Find(`#turn-2 [data-testid="evidence-mark"]`).Text())
	require.Contains(t, doc.Find(`#turn-1 [data-testid="tool-result"] pre`).Text(), `"**raw**"`)
}
