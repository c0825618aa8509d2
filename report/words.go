package report

import (
	"encoding/json"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// say is a text the analysis wrote, in l's language: the English it stored for an
// English reader and where no catalog message was kept (a model's words, a diagnosis
// made before), else the message written by l.
func say(l *locale.Localizer, english string, t locale.Text) string {
	if t.IsZero() || l.Code() == locale.English {
		return english
	}
	return l.Text(t)
}

// TitleIn is the Action's title in l's language.
func (a Action) TitleIn(l *locale.Localizer) string {
	if a.Words == nil {
		return a.Title
	}
	return say(l, a.Title, a.Words.Title)
}

// ProblemIn is the Action's problem in l's language.
func (a Action) ProblemIn(l *locale.Localizer) string {
	if a.Words == nil {
		return a.Problem
	}
	return say(l, a.Problem, a.Words.Problem)
}

// RecommendationIn is the Action's steps in l's language.
func (a Action) RecommendationIn(l *locale.Localizer) []string {
	if a.Words == nil || len(a.Words.Recommendation) != len(a.Recommendation) {
		return a.Recommendation
	}
	out := make([]string, len(a.Recommendation))
	for i, s := range a.Recommendation {
		out[i] = say(l, s, a.Words.Recommendation[i])
	}
	return out
}

// ImpactIn is the Action's expected impact in l's language.
func (a Action) ImpactIn(l *locale.Localizer) string {
	if a.Words == nil {
		return a.ExpectedImpact
	}
	return say(l, a.ExpectedImpact, a.Words.ExpectedImpact)
}

// TitleIn is the title in l's language.
func (c Cluster) TitleIn(l *locale.Localizer) string { return say(l, c.Title, c.TitleText) }

// TitleIn is the finding's title in l's language.
func (f Finding) TitleIn(l *locale.Localizer) string {
	if f.Words == nil {
		return f.Title
	}
	return say(l, f.Title, f.Words.Title)
}

// DescriptionIn is the finding's description in l's language.
func (f Finding) DescriptionIn(l *locale.Localizer) string {
	if f.Words == nil {
		return f.Description
	}
	return say(l, f.Description, f.Words.Description)
}

// DescriptionIn is the description of the example's finding in l's language.
func (q Quote) DescriptionIn(l *locale.Localizer) string {
	if q.Words == nil {
		return q.Description
	}
	return say(l, q.Description, q.Words.Description)
}

// ShowsIn says what example q of the Action shows, in l's language: its finding's
// description, or, for the case the Problem already tells in the same words, that it
// is that case, so a PM reads it once.
func (a Action) ShowsIn(l *locale.Localizer, q Quote) string {
	shows := q.DescriptionIn(l)
	told := strings.ToLower(strings.TrimRight(shows, ".。"))
	if told != "" && strings.Contains(strings.ToLower(a.ProblemIn(l)), told) {
		return l.T("evidence.shows_problem")
	}
	return shows
}

// ScopeIn is what the warning is about in l's language ("" when it is about the task).
func (w Warning) ScopeIn(l *locale.Localizer) string { return say(l, w.Scope, w.ScopeText) }

// MessageIn is the warning in l's language.
func (w Warning) MessageIn(l *locale.Localizer) string { return say(l, w.Message, w.MessageText) }

// SummaryIn is a diagnosis's summary of its conversation in l's language.
func SummaryIn(l *locale.Localizer, d analyzer.Diagnosis) string {
	if d.SummaryWords == nil {
		return d.Summary
	}
	return say(l, d.Summary, *d.SummaryWords)
}

// SayStored is a text the analysis wrote as a query reads it: its English and, where
// one was kept, its catalog message as stored JSON (raw; empty for none), in l's
// language. A message that cannot be read leaves the English.
func SayStored(l *locale.Localizer, english string, raw []byte) string {
	var t locale.Text
	if len(raw) == 0 || json.Unmarshal(raw, &t) != nil {
		return english
	}
	return say(l, english, t)
}
