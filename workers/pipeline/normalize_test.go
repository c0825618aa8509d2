package pipeline

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

var normConv = transcript.Conversation{ID: "c1", Messages: []transcript.Message{
	{Role: transcript.RoleUser, Content: "Please   cancel my\nbooking ABC123."},
	{Role: transcript.RoleAssistant, Content: "Done.", ToolCalls: []transcript.ToolCall{{Name: "cancel_reservation", Arguments: `{"id":"ABC123"}`}}},
	{Role: transcript.RoleUser, Content: "我要转人工客服！"},
}}

func TestNormalizeDiagnosisVerifiesEvidence(t *testing.T) {
	t.Parallel()
	d, err := NormalizeDiagnosis(analyzer.Diagnosis{
		Outcome: "Resolved",
		Findings: []analyzer.Finding{{
			Type: "action", Category: "Tool Error", Severity: 3, Confidence: 0.5,
			Evidence: []analyzer.Evidence{
				{Turn: 1, Quote: "please cancel my booking"},          // whitespace and case folded
				{Turn: 2, Quote: `cancel_reservation({"id":"ABC123"`}, // a tool call
				{Turn: 3, Quote: "转人工客服!"},                            // full-width punctuation folded
				{Turn: 1, Quote: "refund my ticket"},                  // not said
				{Turn: 2, Quote: "please cancel"},                     // said, but in another turn
				{Turn: 9, Quote: "out of range"},                      // dropped
				{Turn: 1, Quote: "yes", Verified: true},               // the analyzer's claim is not trusted
			},
		}},
	}, normConv)
	require.NoError(t, err)
	require.Equal(t, "resolved", d.Outcome)
	f := d.Findings[0]
	require.Equal(t, "tool error", f.Title, "an untitled finding is titled by its category")
	var verified []bool
	for _, e := range f.Evidence {
		verified = append(verified, e.Verified)
	}
	require.Equal(t, []bool{true, true, true, false, false, false}, verified)
}

// TestNormalizeDiagnosisSaysWhoSpoke: each quote says whose words it is, so an
// exchange can be shown as who said what; a tool call is told from the agent's words.
func TestNormalizeDiagnosisSaysWhoSpoke(t *testing.T) {
	t.Parallel()
	conv := transcript.Conversation{ID: "c1", Messages: []transcript.Message{
		{Role: transcript.RoleSystem, Content: "You are an agent."},
		{Role: transcript.RoleUser, Content: "请帮我取消订单 W1。"},
		{Role: transcript.RoleAssistant, Content: "Cancelling it now.", ToolCalls: []transcript.ToolCall{{Name: "cancel_order", Arguments: `{"id":"W1"}`}}},
		{Role: transcript.RoleTool, Content: `{"status": "cancelled"}`},
		{Role: transcript.RoleAssistant, Content: "订单已取消。"},
	}}
	d, err := NormalizeDiagnosis(analyzer.Diagnosis{Outcome: "resolved", Findings: []analyzer.Finding{{
		Type: "RISK", Category: "unconfirmed_write", Title: "t", Severity: 4, Confidence: 0.6,
		Evidence: []analyzer.Evidence{
			{Turn: 2, Quote: "请帮我取消订单"}, {Turn: 3, Quote: "Cancelling it now."}, {Turn: 3, Quote: `cancel_order({"id":"W1"})`},
			{Turn: 4, Quote: `"status": "cancelled"`}, {Turn: 5, Quote: "订单已取消"}, {Turn: 1, Quote: "You are an agent."},
		},
	}}}, conv)
	require.NoError(t, err)
	var speakers []string
	for _, e := range d.Findings[0].Evidence {
		speakers = append(speakers, e.Speaker)
	}
	require.Equal(t, []string{analyzer.SpeakerUser, analyzer.SpeakerAgent, analyzer.SpeakerCall, analyzer.SpeakerTool, analyzer.SpeakerAgent, ""}, speakers)
}

// TestNormalizeDiagnosisMarksWhereATurnGoesOn: a quote of the user's or the agent's
// words that stops before its turn ends, or a fragment of a call or a result that
// leaves a list open, is marked, so the page and report.md show the cut; a whole turn
// and a fragment that closes what it opens are not.
func TestNormalizeDiagnosisMarksWhereATurnGoesOn(t *testing.T) {
	t.Parallel()
	conv := transcript.Conversation{ID: "c1", Messages: []transcript.Message{
		{Role: transcript.RoleUser, Content: "请帮我取消订单 W1。谢谢！"},
		{Role: transcript.RoleAssistant, Content: "Booked:\n- Flight: HAT1\n- Date: May 20", ToolCalls: []transcript.ToolCall{{Name: "book", Arguments: `{"pay":[{"id":"c1","amount":100},{"id":"c2","amount":50}]}`}}},
		{Role: transcript.RoleTool, Content: `{"cabin": "business", "flights": [{"n": "HAT1"}]}`},
		{Role: transcript.RoleUser, Content: "Thanks."},
	}}
	d, err := NormalizeDiagnosis(analyzer.Diagnosis{Outcome: "resolved", Findings: []analyzer.Finding{{
		Type: "RISK", Category: "unconfirmed_write", Title: "t", Severity: 4, Confidence: 0.6,
		Evidence: []analyzer.Evidence{
			{Turn: 1, Quote: "请帮我取消订单 W1。"}, {Turn: 2, Quote: "Booked:\n- Flight: HAT1"}, {Turn: 2, Quote: `"pay":[{"id":"c1","amount":100}`},
			{Turn: 3, Quote: `"cabin": "business"`}, {Turn: 3, Quote: `"flights": [{"n": "HAT1"}]`}, {Turn: 4, Quote: "Thanks."},
			{Turn: 2, Quote: "- Date: May 20"},
		},
	}}}, conv)
	require.NoError(t, err)
	var goesOn []bool
	for _, e := range d.Findings[0].Evidence {
		goesOn = append(goesOn, e.Continues)
	}
	require.Equal(t, []bool{true, true, true, false, false, false, false}, goesOn)
}

// TestNormalizeDiagnosisNamesTheTool: a quote of a call's arguments or of a tool's
// result is named with its tool — the call it is part of, the call a result answers
// by its id, else by the result's own name, else the one call before it — so an
// example reads "calls book_flight with …", not "calls it with …".
func TestNormalizeDiagnosisNamesTheTool(t *testing.T) {
	t.Parallel()
	conv := transcript.Conversation{ID: "c1", Messages: []transcript.Message{
		{Role: transcript.RoleUser, Content: "Book HAT1 and add a bag."},
		{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{
			{ID: "a", Name: "book_flight", Arguments: `{"flight":"HAT1"}`}, {ID: "b", Name: "add_bag", Arguments: `{"bags":1}`},
		}},
		{Role: transcript.RoleTool, ToolCallID: "b", Content: `{"bags": 0}`},
		{Role: transcript.RoleTool, ToolCallID: "a", Content: "Error: flight full"},
		{Role: transcript.RoleTool, Name: "add_bag", Content: "ok"},
		{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{{Name: "search", Arguments: `{"q":"HAT2"}`}}},
		{Role: transcript.RoleTool, Content: "[]"},
		{Role: transcript.RoleUser, Content: "Well?"},
	}}
	d, err := NormalizeDiagnosis(analyzer.Diagnosis{Outcome: "resolved", Findings: []analyzer.Finding{{
		Type: "RISK", Category: "c", Title: "t", Severity: 3, Confidence: 0.6,
		Evidence: []analyzer.Evidence{
			{Turn: 2, Quote: `"bags":1`}, {Turn: 2, Quote: `"flight":"HAT1"`}, {Turn: 3, Quote: `"bags": 0`},
			{Turn: 4, Quote: "flight full"}, {Turn: 5, Quote: "ok"}, {Turn: 7, Quote: "[]"}, {Turn: 8, Quote: "Well?"},
		},
	}}}, conv)
	require.NoError(t, err)
	var tools []string
	for _, e := range d.Findings[0].Evidence {
		tools = append(tools, e.Tool)
	}
	require.Equal(t, []string{"add_bag", "book_flight", "add_bag", "book_flight", "add_bag", "search", ""}, tools)
}

func TestNormalizeDiagnosisRefusesWhatItCannotFix(t *testing.T) {
	t.Parallel()
	_, err := NormalizeDiagnosis(analyzer.Diagnosis{Outcome: "great", Findings: []analyzer.Finding{{Type: "BUG", Title: "x"}}}, normConv)
	require.ErrorIs(t, err, analyzer.ErrInvalidOutput)
	require.ErrorContains(t, err, `outcome "great"`)
	require.ErrorContains(t, err, `type "BUG"`)
}

func TestNormalizeAction(t *testing.T) {
	t.Parallel()
	a, err := NormalizeAction(analyzer.Action{Title: " T ", Problem: "p", Recommendation: []string{"do"}, FixLocation: "Prompt"})
	require.NoError(t, err)
	require.Equal(t, "prompt", a.FixLocation)
	_, err = NormalizeAction(analyzer.Action{Title: "T", Problem: "p", Recommendation: []string{" "}, FixLocation: "database"})
	require.ErrorIs(t, err, analyzer.ErrInvalidOutput)
	require.ErrorContains(t, err, "fixLocation")
	require.ErrorContains(t, err, "recommendation")
}

// TestNormalizeDiagnosisMarksTheSameCall: a call quote whose call repeats an earlier
// quoted call — the same tool, the same arguments in any spacing or key order — says
// so (SameAs), so a cut of long arguments still shows the retry changed nothing; a
// call with other arguments, or of another tool, is not marked.
func TestNormalizeDiagnosisMarksTheSameCall(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 400)
	call := func(name, args string) transcript.Message {
		return transcript.Message{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{{Name: name, Arguments: args}}}
	}
	conv := transcript.Conversation{ID: "c1", Messages: []transcript.Message{
		{Role: transcript.RoleUser, Content: "Book it."},
		call("book", `{"note":"`+long+`","flight":"HAT1"}`),
		{Role: transcript.RoleTool, Content: "Error: payment amount does not add up"},
		call("book", `{"flight": "HAT1", "note": "`+long+`"}`),
		{Role: transcript.RoleTool, Content: "Error: payment amount does not add up"},
		call("book", `{"note":"`+long+`","flight":"HAT2"}`),
		call("hold", `{"note":"`+long+`","flight":"HAT1"}`),
	}}
	quote := `"flight":"HAT1"`
	d, err := NormalizeDiagnosis(analyzer.Diagnosis{Outcome: "resolved", Findings: []analyzer.Finding{{
		Type: "ACTION", Category: "repetition", Title: "t", Severity: 3, Confidence: 0.9,
		Evidence: []analyzer.Evidence{{Turn: 4, Quote: `"flight": "HAT1"`}, {Turn: 2, Quote: quote}, {Turn: 6, Quote: `"flight":"HAT2"`}, {Turn: 7, Quote: quote}, {Turn: 3, Quote: "Error"}},
	}}}, conv)
	require.NoError(t, err)
	var same []int
	for _, e := range d.Findings[0].Evidence {
		same = append(same, e.SameAs)
	}
	require.Equal(t, []int{2, 0, 0, 0, 0}, same)
}
