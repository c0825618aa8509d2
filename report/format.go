package report

import (
	"fmt"
	"math"
	"strconv"

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
func DriverKindLabel(kind string) string {
	switch kind {
	case "tool":
		return "tool called"
	case "tool_error":
		return "tool returned an error"
	case "category":
		return "finding"
	case "length":
		return "conversation length"
	case "user_turns":
		return "user turns"
	case "user_words":
		return "the user wrote"
	case "agent_words":
		return "the agent wrote"
	}
	return humanize(kind)
}

// DriverFeatureLabel is a failure driver's feature in words for people: a category by
// its CategoryLabel ("long_conversation" → "Long conversation"), every other kind's
// feature as the conversations wrote it (a tool's name, a word, a length band).
func DriverFeatureLabel(kind, feature string) string {
	if kind == "category" {
		return CategoryLabel(feature)
	}
	return feature
}

// LabelFields lists the fields an export can carry an outcome label in, for a report
// that has none.
func LabelFields() string {
	return "success, resolved or task_success (true/false), reward or score (0–1), outcome, status, label or resolution (resolved, failed, escalated…), csat, rating or satisfaction (1–5), thumbs or feedback (up/down)"
}

// ExcessFailures says how many failures an issue explains beyond its share, as a
// sentence writes it after "it explains": "4.4 failures", "1 failure", and "no
// failures" for an issue that explains none (its conversations fail as often as the
// others or less), never a negative figure.
func ExcessFailures(f float64) string {
	switch s := Score(f); {
	case roundTo(f, 1) <= 0:
		return "no failures"
	case s == "1":
		return "1 failure"
	default:
		return s + " failures"
	}
}

// SupportWords says in a sentence what an issue's rank rests on (Support, by
// cluster.SupportFormula): the failures it explains at least, with what they were
// counted from, or, when it explains none for sure, how many conversations it reaches
// at least and how severe it is. The task page and report.md say it alike.
func SupportWords(s Support) string {
	reach := fmt.Sprintf("it reaches at least %s of the analyzed conversations, at severity %s of 5 and %s confidence", Percent(s.ShareLow), Score(s.Severity), Percent(s.Confidence))
	var counted string
	switch s.Basis {
	case cluster.BasisLabels:
		counted = fmt.Sprintf("%s of its %d labeled conversations failed, against %s of all labeled ones", Score(s.Failures), s.Conversations, Percent(s.RunRate))
	case cluster.BasisDetector:
		counted = fmt.Sprintf("the agent's detector estimates %s failures among its %d conversations, against %s of the run", Score(s.Failures), s.Conversations, Percent(s.RunRate))
	default:
		return "No failures are known, so it ranks by how common and severe it is for sure: " + reach + "."
	}
	if roundTo(s.Explained, 1) <= 0 {
		return "It explains no failures for sure (" + counted + "), so it ranks by how common and severe it is: " + reach + "."
	}
	return fmt.Sprintf("It explains at least %s: %s.", ExcessFailures(s.Explained), counted)
}
