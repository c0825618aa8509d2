package report

import (
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// The vocabularies' words for people come from the catalog, one message per value
// (status.completed, category.tool_error); a value the catalog does not know (a
// category an older analyzer wrote) is shown humanised, in the words it came in.

// StatusLabel is a task status in words.
func StatusLabel(l *locale.Localizer, s taskstate.Status) string {
	return vocabulary(l, "status.", string(s))
}

// StageLabel is a pipeline stage in words.
func StageLabel(l *locale.Localizer, s taskstate.Stage) string {
	return vocabulary(l, "stage.", string(s))
}

// StatusExplanation is one sentence on what a status means for the reader, or empty
// when the label says it all.
func StatusExplanation(l *locale.Localizer, status taskstate.Status) string {
	if s, ok := l.Lookup("status_explained." + string(status)); ok {
		return s
	}
	return ""
}

// CategoryLabel is a finding category in words: "user_repeats" → "User repeats".
func CategoryLabel(l *locale.Localizer, category string) string {
	return vocabulary(l, "category.", category)
}

// OutcomeLabel is a conversation's outcome as diagnosed ("partially_resolved"), or
// its outcome label ("failed"), in words.
func OutcomeLabel(l *locale.Localizer, outcome string) string {
	return vocabulary(l, "outcome.", outcome)
}

// TypeLabel is an Action's or issue's type, RISK or ACTION, as its badge reads in l's
// language; the identifier itself stays in the CSV and JSON downloads.
func TypeLabel(l *locale.Localizer, typ string) string {
	return l.Text(analyzer.FindingType(typ).Badge())
}

// RiskKindLabel is a risk flag kind in words for people.
func RiskKindLabel(l *locale.Localizer, kind string) string {
	return vocabulary(l, "risk_kind.", kind)
}

// RiskKindNote says precisely what a risk kind counts, for the risk screening section,
// where "refusals" must not read as the policy declines of Expected behavior; false
// for a kind whose label says enough.
func RiskKindNote(l *locale.Localizer, kind string) (string, bool) {
	return l.Lookup("risk_note." + kind)
}

// RiskKindNamed is a risk kind's label followed by its note, when it has one.
func RiskKindNamed(l *locale.Localizer, kind string) string {
	if note, ok := RiskKindNote(l, kind); ok {
		return l.T("risk.kind_with_note", "Kind", RiskKindLabel(l, kind), "Note", note)
	}
	return RiskKindLabel(l, kind)
}

// FixLocationLabel says where an Action's fix belongs, in words.
func FixLocationLabel(l *locale.Localizer, loc string) string {
	if s, ok := l.Lookup("fix_location." + loc); ok {
		return s
	}
	return loc
}

// vocabulary is value's message under prefix, or value humanised.
func vocabulary(l *locale.Localizer, prefix, value string) string {
	if s, ok := l.Lookup(prefix + value); ok && value != "" {
		return s
	}
	return humanize(value)
}

// humanize turns an unknown identifier into words: "some_thing" → "Some thing".
func humanize(s string) string {
	s = strings.ReplaceAll(s, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
