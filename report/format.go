package report

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/workers/cluster"
	"github.com/checkup-dev/checkup/workers/percent"
)

// Percent formats a share 0..1 for people: percent.Format, the one way the page, the
// CSV files, report.md and the analyzers' texts write a share ("6.5%" for 13 of 200).
func Percent(share float64) string { return percent.Format(share) }

// Score formats a score with at most one decimal.
func Score(f float64) string {
	return strconv.FormatFloat(roundTo(f, 1), 'f', -1, 64)
}

func roundTo(f float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(f*p) / p
}

// PValue formats a p- or q-value for people: two significant digits, and "< 0.001" below
// that.
func PValue(p float64) string {
	if p < 0.001 {
		return "< 0.001"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

// Lift formats a failure lift: "2.3×".
func Lift(l float64) string { return strconv.FormatFloat(roundTo(l, 1), 'f', 1, 64) + "×" }

// DriverKindLabel is the kind of a failure driver in words for people.
func DriverKindLabel(l *locale.Localizer, kind string) string {
	return vocabulary(l, "driver_kind.", kind)
}

// DriverFeatureLabel is a failure driver's feature in words for people: a category by
// its CategoryLabel ("long_conversation" → "Long conversation"), every other kind's
// feature as the conversations wrote it (a tool's name, a word, a length band).
func DriverFeatureLabel(l *locale.Localizer, kind, feature string) string {
	if kind == "category" {
		return CategoryLabel(l, feature)
	}
	return feature
}

// LabelFields lists the fields an export can carry an outcome label in, for a report
// that has none.
func LabelFields(l *locale.Localizer) string { return l.T("labels.fields") }

// ExcessFailures says how many failures an issue explains beyond its share, as a
// sentence writes it after "it explains": "4.4 failures", "1 failure", and "no
// failures" for an issue that explains none (its conversations fail as often as the
// others or less), never a negative figure.
func ExcessFailures(l *locale.Localizer, f float64) string {
	switch s := Score(f); {
	case roundTo(f, 1) <= 0:
		return l.T("labels.no_failures")
	case s == "1":
		return l.T("labels.one_failure")
	default:
		return l.T("labels.failures", "N", s)
	}
}

// SupportWords says in a sentence what an issue's rank rests on (Support, by
// cluster.SupportFormula): the failures it explains at least, with what they were
// counted from, or, when it explains none for sure, how many conversations it reaches
// at least and how severe it is. The task page and report.md say it alike.
func SupportWords(l *locale.Localizer, s Support) string {
	reach := l.T("support.reach", "Share", l.Percent(s.ShareLow), "Severity", Score(s.Severity), "Confidence", l.Percent(s.Confidence),
		"Weighted", l.Percent(s.Reach)) // what orders it, as the issues table says
	var counted string
	switch s.Basis {
	case cluster.BasisLabels:
		counted = l.T("support.counted_labels", "Failures", Score(s.Failures), "N", strconv.Itoa(s.Conversations), "Rate", l.Percent(s.RunRate))
	case cluster.BasisDetector:
		counted = l.T("support.counted_detector", "Failures", Score(s.Failures), "N", strconv.Itoa(s.Conversations), "Rate", l.Percent(s.RunRate))
	default:
		return l.T("support.unknown", "Reach", reach)
	}
	if s.Explained <= 0 {
		return l.T("support.none_sure", "Counted", counted, "Reach", reach)
	}
	return l.T("support.explains", "Failures", explainedFailures(l, s.Explained), "Counted", counted)
}

// RankWords says in a few words what places an issue where it is in the issues table
// (cluster.BySupport), the figure it is ordered by: the failures it explains at least,
// else the share it reaches at least and its severity, with the weighted reach they
// make (Support.Reach) that orders it, and "seen once" for the issues seen in one
// conversation, which come last. Read down the table, the failures never
// grow, then the reach never grows, whatever the priority scores do.
func RankWords(l *locale.Localizer, s Support) string {
	switch {
	case s.SeenOnce:
		return l.T("support.short_seen_once")
	case s.Explained > 0:
		return l.T("support.short_explains", "Failures", explainedFailures(l, s.Explained))
	}
	// The share the card's rank line names, so the two read as one figure and its weight.
	return l.T("support.short_reach", "Share", l.Percent(s.ShareLow), "Severity", Score(s.Severity), "Reach", l.Percent(s.Reach))
}

// explainedFailures is ExcessFailures for the failures an issue explains at least,
// which rank it: one decimal, or two significant digits where one decimal would round
// a figure above zero to none ("0.04 failures"), so an issue ranked above those that
// explain none never reads as explaining none itself.
func explainedFailures(l *locale.Localizer, f float64) string {
	if f > 0 && roundTo(f, 1) <= 0 {
		return l.T("labels.failures", "N", strconv.FormatFloat(f, 'g', 2, 64))
	}
	return ExcessFailures(l, f)
}

// Markdown's emphasis markers around words: **bold** and __bold__, the underscores only
// at the edges of words, so a name with a double underscore inside (a__b) is left alone.
var (
	starEmphasis       = regexp.MustCompile(`\*\*([^\s*](?:[^*]*?[^\s*])?)\*\*`)
	underscoreEmphasis = regexp.MustCompile(`\b__([^\s_](?:[^_]*?[^\s_])?)__\b`)
)

// Readable is a quote of what the agent or the user said as an example shows it to be
// read: without Markdown's emphasis markers (**Reservation ID** reads Reservation ID).
// Only the display changes: the stored quote stays the transcript's text, which it is
// verified against. A tool's output and a call's arguments are shown as they are.
func Readable(quote string) string {
	if !strings.Contains(quote, "**") && !strings.Contains(quote, "__") {
		return quote
	}
	return underscoreEmphasis.ReplaceAllString(starEmphasis.ReplaceAllString(quote, "$1"), "$1")
}

// Lines groups an exchange into the lines it is shown as: quotes in a row from one
// turn by one speaker (two records of one lookup's result) are one line, labelled once.
func Lines(exchange []Evidence) [][]Evidence {
	var lines [][]Evidence
	for _, e := range exchange {
		if n := len(lines); n > 0 && lines[n-1][0].Turn == e.Turn && lines[n-1][0].Speaker == e.Speaker {
			lines[n-1] = append(lines[n-1], e)
			continue
		}
		lines = append(lines, []Evidence{e})
	}
	return lines
}
