package analyzer_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

func TestNormalizeDiagnosisFixesSpellingAndRanges(t *testing.T) {
	t.Parallel()
	in := analyzer.Diagnosis{
		Outcome: " Partially Resolved ",
		Summary: "  The user wanted a refund.  ",
		Findings: []analyzer.Finding{{
			Type:          "action",
			Category:      "Tool Error",
			Title:         strings.Repeat("t", analyzer.MaxTitleRunes+5),
			Severity:      9,
			Confidence:    1.7,
			PriorityScore: -3,
			Evidence: []analyzer.Evidence{
				{Turn: 2, Quote: " refund please "},
				{Turn: 0, Quote: "before the start"},
				{Turn: 7, Quote: "after the end"},
				{Turn: 3, Quote: "   "},
			},
		}, {
			Type:       "Risk",
			Category:   "something-new",
			Severity:   0,
			Confidence: math.NaN(),
		}},
	}
	got := analyzer.NormalizeDiagnosis(in, 6)

	require.Equal(t, "partially_resolved", got.Outcome)
	require.Equal(t, "The user wanted a refund.", got.Summary)
	f := got.Findings[0]
	require.Equal(t, analyzer.TypeAction, f.Type)
	require.Equal(t, "tool_error", f.Category)
	require.Len(t, []rune(f.Title), analyzer.MaxTitleRunes)
	require.Equal(t, 5, f.Severity)
	require.InDelta(t, 1.0, f.Confidence, 0)
	require.InDelta(t, 0.0, f.PriorityScore, 0)
	require.Equal(t, []analyzer.Evidence{{Turn: 2, Quote: "refund please"}}, f.Evidence)

	g := got.Findings[1]
	require.Equal(t, analyzer.TypeRisk, g.Type)
	require.Equal(t, "other", g.Category)
	require.Equal(t, 1, g.Severity)
	require.InDelta(t, 0.0, g.Confidence, 0)
	require.NotNil(t, g.Evidence, "an empty evidence list stays a list, not null")

	require.Equal(t, " Partially Resolved ", in.Outcome, "the input is not modified")
	require.Len(t, in.Findings[0].Evidence, 4)
}

func TestNormalizeDiagnosisKeepsUnknownTypeAndOutcome(t *testing.T) {
	t.Parallel()
	got := analyzer.NormalizeDiagnosis(analyzer.Diagnosis{
		Outcome:  "great",
		Findings: []analyzer.Finding{{Type: "BUG", Category: "refusal"}},
	}, 3)
	require.Equal(t, "great", got.Outcome)
	require.Equal(t, analyzer.FindingType("BUG"), got.Findings[0].Type)
	require.Equal(t, "refusal", got.Findings[0].Category)
}

func TestNormalizeDiagnosisNilFindingsBecomeEmpty(t *testing.T) {
	t.Parallel()
	got := analyzer.NormalizeDiagnosis(analyzer.Diagnosis{Outcome: "resolved"}, 3)
	require.NotNil(t, got.Findings)
	require.Empty(t, got.Findings)
}

func TestNormalizeTextCutsByRunes(t *testing.T) {
	t.Parallel()
	quote := strings.Repeat("转人工", analyzer.MaxQuoteRunes)
	got := analyzer.NormalizeDiagnosis(analyzer.Diagnosis{Findings: []analyzer.Finding{{
		Evidence: []analyzer.Evidence{{Turn: 1, Quote: quote}},
	}}}, 1)
	cut := got.Findings[0].Evidence[0].Quote
	require.Len(t, []rune(cut), analyzer.MaxQuoteRunes)
	require.True(t, strings.HasPrefix(quote, cut), "a cut quote is still a prefix of the original")
}

func TestNormalizeAction(t *testing.T) {
	t.Parallel()
	steps := []string{" first ", "", "  "}
	for range analyzer.MaxSteps + 2 {
		steps = append(steps, "more")
	}
	got := analyzer.NormalizeAction(analyzer.Action{
		Title:          " Confirm before writing ",
		Problem:        strings.Repeat("p", analyzer.MaxDescriptionRunes+1),
		Recommendation: steps,
		ExpectedImpact: "fewer wrong bookings",
		FixLocation:    " Prompt ",
	})
	require.Equal(t, "Confirm before writing", got.Title)
	require.Len(t, got.Problem, analyzer.MaxDescriptionRunes)
	require.Len(t, got.Recommendation, analyzer.MaxSteps)
	require.Equal(t, "first", got.Recommendation[0])
	require.Equal(t, "prompt", got.FixLocation)

	require.Equal(t, "database", analyzer.NormalizeAction(analyzer.Action{FixLocation: "Database"}).FixLocation)
}

// A score or confidence too small for the database's single precision is zero.
func TestNormalizeDiagnosisFlushesTinyNumbers(t *testing.T) {
	t.Parallel()
	got := analyzer.NormalizeDiagnosis(analyzer.Diagnosis{FailureScore: 1e-50, Findings: []analyzer.Finding{{
		Type: "action", Category: "tool_error", Title: "t", Severity: 2, Confidence: 1e-300, PriorityScore: 5e-45,
	}}}, 3)
	require.Zero(t, got.FailureScore)
	require.Zero(t, got.Findings[0].Confidence)
	require.Zero(t, got.Findings[0].PriorityScore)
}
