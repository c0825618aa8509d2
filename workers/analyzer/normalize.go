package analyzer

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/checkup-dev/checkup/workers/textmatch"
)

// Lengths, in runes, above which free text is cut by normalisation. They bound what a
// report shows and what the Action stage sends back to a model; strict JSON Schema
// mode cannot express them, so they are enforced here rather than in the schemas.
const (
	MaxSummaryRunes     = 600
	MaxTitleRunes       = 120
	MaxDescriptionRunes = 1000
	MaxQuoteRunes       = 300
	MaxStepRunes        = 400
	// MaxSteps caps an Action's recommendation list; a longer list is not read.
	MaxSteps = 8
	// MaxFindings and MaxEvidence are the most findings a model's diagnosis may give
	// and the most evidence items per finding (the LLM schema's maxItems); the LLM
	// analyzer drops the rest and counts them in Adjustments.
	MaxFindings = 8
	MaxEvidence = 3
)

// NormalizeDiagnosis fixes what can be fixed mechanically in an analyzer's diagnosis,
// so that only real mistakes are left for schema validation and the one repair:
// enum spelling ("action" → "ACTION", "Tool Error" → "tool_error", an unknown
// category → "other"), severity clamped to 1..5, confidence to 0..1, priorityScore to
// 0..100, failureScore to 0..1, a failedTurn outside 1..turns to 0, text trimmed and
// cut to the Max*Runes limits, an expected finding without its policy sentence made
// unexpected, and evidence dropped when its turn is outside 1..turns (the
// conversation's length) or its quote is empty. An
// unknown type or outcome is kept as written: guessing it would hide a wrong answer.
// Evidence.Verified is left alone; the pipeline sets it. d is not modified.
func NormalizeDiagnosis(d Diagnosis, turns int) Diagnosis {
	d.Outcome = normalizeEnum(d.Outcome)
	d.Summary = normalizeText(d.Summary, MaxSummaryRunes)
	findings := make([]Finding, 0, len(d.Findings))
	for _, f := range d.Findings {
		findings = append(findings, normalizeFinding(f, turns))
	}
	d.Findings = findings
	d.FailureScore = normalizeRange(d.FailureScore, 0, 1)
	if d.FailedTurn < 1 || d.FailedTurn > turns {
		d.FailedTurn = 0
	}
	return d
}

func normalizeFinding(f Finding, turns int) Finding {
	f.Type = FindingType(strings.ToUpper(strings.TrimSpace(string(f.Type))))
	f.Category = normalizeEnum(f.Category)
	if !slices.Contains(Categories(), f.Category) {
		f.Category = "other"
	}
	f.Title = normalizeText(f.Title, MaxTitleRunes)
	f.Description = normalizeText(f.Description, MaxDescriptionRunes)
	f.Severity = min(max(f.Severity, 1), 5)
	f.Confidence = normalizeRange(f.Confidence, 0, 1)
	f.PriorityScore = normalizeRange(f.PriorityScore, 0, 100)
	f.Policy = normalizeText(f.Policy, MaxDescriptionRunes)
	if f.Policy == "" {
		f.Expected = false
	}
	if !f.Expected {
		f.Policy = ""
	}
	evidence := make([]Evidence, 0, len(f.Evidence))
	for _, e := range f.Evidence {
		e.Quote = normalizeText(e.Quote, MaxQuoteRunes)
		if e.Turn < 1 || e.Turn > turns || e.Quote == "" {
			continue
		}
		evidence = append(evidence, e)
	}
	f.Evidence = evidence
	return f
}

// NormalizeAction fixes what can be fixed mechanically in a written Action: the
// fixLocation's spelling ("Prompt" → "prompt"; an unknown one is kept for validation
// to refuse), text trimmed and cut to the Max*Runes limits, empty recommendation steps
// dropped and at most MaxSteps kept. a is not modified.
func NormalizeAction(a Action) Action {
	a.Title = normalizeText(a.Title, MaxTitleRunes)
	a.Problem = normalizeText(a.Problem, MaxDescriptionRunes)
	a.ExpectedImpact = normalizeText(a.ExpectedImpact, MaxDescriptionRunes)
	a.FixLocation = normalizeEnum(a.FixLocation)
	steps := make([]string, 0, min(len(a.Recommendation), MaxSteps))
	for _, s := range a.Recommendation {
		if s = normalizeText(s, MaxStepRunes); s != "" && len(steps) < MaxSteps {
			steps = append(steps, s)
		}
	}
	a.Recommendation = steps
	return a
}

// normalizeEnum spells a vocabulary word the way the vocabularies do: lower case, words
// joined by underscores ("Partially Resolved" and "partially-resolved" both become
// "partially_resolved").
func normalizeEnum(s string) string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r == '_' || r == '-' || r == '/' || unicode.IsSpace(r)
	})
	return strings.Join(words, "_")
}

// normalizeText trims s and cuts it to at most n runes, never inside a rune.
func normalizeText(s string, n int) string {
	return strings.TrimSpace(textmatch.Prefix(strings.TrimSpace(s), n))
}

// normalizeRange clamps v to lo..hi; NaN, which JSON cannot carry but Go code can
// produce, becomes lo, and so does a value within minStep of it (a model may answer
// 1e-50), which the database's single-precision columns would refuse as out of range.
func normalizeRange(v, lo, hi float64) float64 {
	if math.IsNaN(v) || v-lo < minStep {
		return lo
	}
	return min(v, hi)
}

// minStep is far below any difference a score or a confidence shows.
const minStep = 1e-9
