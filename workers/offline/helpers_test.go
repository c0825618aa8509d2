package offline

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// The message builders the tests write conversations with.
var (
	sys      = transcripttest.System
	u        = transcripttest.User
	as       = transcripttest.Assistant
	res      = transcripttest.Result
	toolCall = transcripttest.Call
)

// diagnose runs the analyzer on a conversation and checks everything every diagnosis
// must satisfy.
func diagnose(t *testing.T, a *Analyzer, msgs ...transcript.Message) analyzer.Diagnosis {
	t.Helper()
	conv := transcript.Conversation{ID: "test", Messages: msgs}
	r, err := a.Diagnose(context.Background(), conv)
	require.NoError(t, err)
	require.Equal(t, analyzer.PassFirst, r.Pass)
	require.Equal(t, analyzer.Usage{}, r.Usage)
	requireValid(t, conv, r.Value)
	return r.Value
}

// requireValid checks a diagnosis against the schema's rules and every evidence quote
// against the turn it cites.
func requireValid(t testing.TB, conv transcript.Conversation, d analyzer.Diagnosis) {
	t.Helper()
	require.Contains(t, analyzer.Outcomes(), d.Outcome)
	require.NotEmpty(t, d.Summary)
	require.NotNil(t, d.Findings)
	require.LessOrEqual(t, len(analyzer.CitedTurns(d)), maxCitedTurns)
	require.True(t, d.FailureScore >= 0 && d.FailureScore <= 1)
	for _, f := range d.Findings {
		require.Contains(t, []analyzer.FindingType{analyzer.TypeRisk, analyzer.TypeAction}, f.Type)
		require.Contains(t, analyzer.Categories(), f.Category)
		require.NotEmpty(t, f.Title)
		require.NotEmpty(t, f.Description)
		require.LessOrEqual(t, utf8.RuneCountInString(f.Description), 600)
		require.True(t, f.Severity >= 1 && f.Severity <= 5, f.Title)
		require.True(t, f.Confidence > 0 && f.Confidence <= 1, f.Title)
		require.InDelta(t, priority(f.Severity, f.Confidence), f.PriorityScore, 1e-9)
		if len(analyzer.CitedTurns(d)) < maxCitedTurns || f.Expected {
			require.NotEmpty(t, f.Evidence, f.Title)
		}
		for _, e := range f.Evidence {
			m, ok := conv.Turn(e.Turn)
			require.True(t, ok, "%s: turn %d", f.Title, e.Turn)
			require.NotEmpty(t, e.Quote, f.Title)
			require.True(t, utf8.ValidString(e.Quote))
			require.LessOrEqual(t, utf8.RuneCountInString(e.Quote), maxQuote)
			require.True(t, strings.Contains(analyzer.TurnText(m), e.Quote),
				"%s in %s: quote %q is not in turn %d", f.Title, conv.ID, e.Quote, e.Turn)
			require.False(t, e.Verified, "only the pipeline verifies")
		}
	}
}

// only returns the findings of one category.
func only(d analyzer.Diagnosis, category string) []analyzer.Finding {
	var out []analyzer.Finding
	for _, f := range d.Findings {
		if f.Category == category {
			out = append(out, f)
		}
	}
	return out
}

// titles lists the finding titles of a diagnosis.
func titles(d analyzer.Diagnosis) []string {
	var out []string
	for _, f := range d.Findings {
		out = append(out, f.Title)
	}
	slices.Sort(out)
	return out
}

func TestTurnTextRendersToolCalls(t *testing.T) {
	t.Parallel()
	require.Equal(t, "plain", analyzer.TurnText(u("plain")))
	m := transcript.Message{Role: transcript.RoleAssistant, Content: "Booking now.", ToolCalls: []transcript.ToolCall{
		{ID: "a", Name: "book", Arguments: `{"id":1}`}, {ID: "b", Name: "notify", Arguments: ""},
	}}
	require.Equal(t, "Booking now.\nbook({\"id\":1})\nnotify()", analyzer.TurnText(m))
	require.Equal(t, `book({"id":1})`, analyzer.TurnText(toolCall("a", "book", `{"id":1}`)))
}
