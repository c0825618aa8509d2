package pages_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/views/layout"
)

const (
	taskID = "6a885acc-b188-4657-a6e6-ec29ba421715"
	xss    = `<script>alert(1)</script><b>bold</b>`
)

var page = layout.Page{Title: "t", UserName: "Pat", UserEmail: "pat@example.com", CSRFToken: "tok"}

// english is the English localizer, the one the pages' tests read them in.
func english(t testing.TB) *locale.Localizer {
	t.Helper()
	b, err := locale.New()
	require.NoError(t, err)
	return b.English()
}

// render renders c in English and parses the HTML, as a browser would see it.
func render(t *testing.T, c templ.Component) (*goquery.Document, string) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, c.Render(locale.NewContext(context.Background(), english(t)), &buf))
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	return doc, buf.String()
}

func testid(doc *goquery.Document, id string) *goquery.Selection {
	return doc.Find(`[data-testid="` + id + `"]`)
}

// sampleReport is a finished diagnosis with one RISK and one ACTION Action, a warning,
// a funnel and a risk summary.
func sampleReport(status string) report.Report {
	created := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	started := created.Add(time.Minute)
	r := report.Report{
		SchemaVersion: 1,
		Task: report.Task{ID: taskID, Title: "Support bot, March", Status: taskstate.Status(status), Terminal: taskstate.Status(status).Terminal(),
			Stage: "diagnosis", ProgressDone: 37, ProgressTotal: 100, Attempt: 1, CreatedAt: created, StartedAt: &started,
			ConversationCount: 100, SourceFilename: "export.jsonl"},
		Analysis:    report.Analysis{Analyzer: "offline", Label: "offline analysis", Offline: true},
		Reliability: report.Reliability{FirstPassValid: 90, Repaired: 3, Isolated: 2},
		Population:  report.Population{Uploaded: 100, Kept: 95, Analysed: 93},
		Funnel: []report.FunnelStep{
			{Step: "uploaded", Label: "Uploaded", Remaining: 100},
			{Step: "empty", Label: "Empty", Removed: 5, Remaining: 95, Reasons: []report.FunnelReason{{Reason: "no user message", Count: 5}}},
			{Step: "kept", Label: "Kept", Remaining: 95},
		},
		RiskSummary: &report.RiskSummary{Screened: 95, Flagged: 4, Selected: 95, Kinds: []report.RiskKind{
			{Kind: "personal_data", Conversations: 4, Flags: 5, Examples: []report.RiskExample{{ConversationID: "c7", Seq: 7, Turn: 3, Quote: "j***@example.com"}}}}},
		Actions: []report.Action{
			{Rank: 1, Type: "RISK", Category: "personal_data", Title: "Stop showing card numbers", Problem: "Cards are shown.",
				Recommendation: []string{"Mask them.", "Tell users why."}, ExpectedImpact: "No leaks.", FixLocation: "tool",
				Conversations: 4, Share: 0.043, PriorityScore: 80, PriorityDecided: true, PriorityParts: report.PriorityParts{Prevalence: 0.043, PrevalenceTerm: 1.7, Severity: 5, SeverityTerm: 40, Confidence: 0.9, ConfidenceTerm: 18},
				Evidence: []report.Quote{{ConversationSeq: 7, ConversationID: "c7", Turn: 3, Quote: "Your card 4242 4242", Verified: true}}},
			{Rank: 2, Type: "ACTION", Category: "user_repeats", Title: "Users repeat themselves", Problem: "They ask twice.",
				Conversations: 20, Share: 0.215, PriorityScore: 55, PriorityDecided: true, Evidence: []report.Quote{{ConversationSeq: 9, ConversationID: "c9", Turn: 4, Quote: "I said that already"}}},
		},
		Clusters: []report.Cluster{
			{Idx: 0, Type: "RISK", Title: "Card numbers shown", Conversations: 4, Prevalence: 0.043, PriorityScore: 80, ActionRank: 1},
			{Idx: 1, Type: "ACTION", Title: "Users repeat themselves", Conversations: 20, Prevalence: 0.215, PriorityScore: 55, ActionRank: 2},
			{Idx: 2, Type: "ACTION", Title: "Long chats", Conversations: 2, Prevalence: 0.02, PriorityScore: 10},
		},
		Warnings:     []report.Warning{{Stage: "diagnosis", Scope: "conversation c3", Message: "The answer stayed invalid after one repair."}},
		WarningCount: 1,
	}
	if r.Task.Terminal {
		finished := started.Add(3 * time.Minute)
		r.Task.FinishedAt = &finished
		r.Task.Stage = "finishing"
	}
	return r
}
