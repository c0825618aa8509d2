package ingest

import (
	"math"
	"strconv"
	"strings"

	"github.com/checkup-dev/checkup/db/transcript"
)

// labelGroup is a family of fields that record an outcome the same way. The groups are
// listed in precedence order: when a conversation carries several outcome fields, the
// first group that gives a verdict wins.
type labelGroup int

const (
	groupFlag     labelGroup = iota // success, resolved, task_success: true/false, yes/no, 1/0
	groupWord                       // outcome, status, label, resolution: succeeded / failed ...
	groupGraded                     // reward, score: a number in 0..1, ≥ 0.5 succeeded
	groupRating                     // csat, rating, satisfaction: 1–5, or satisfied / dissatisfied
	groupReaction                   // thumbs, feedback: up / down, 1 / −1
	noGroup
)

// labelKeys lists the outcome field names in precedence order: by group, then in the
// order written here. Matching ignores case.
func labelKeys() []struct {
	name  string
	group labelGroup
} {
	return []struct {
		name  string
		group labelGroup
	}{
		{"success", groupFlag}, {"resolved", groupFlag}, {"task_success", groupFlag},
		{"outcome", groupWord}, {"status", groupWord}, {"label", groupWord}, {"resolution", groupWord},
		{"reward", groupGraded}, {"score", groupGraded},
		{"csat", groupRating}, {"rating", groupRating}, {"satisfaction", groupRating},
		{"thumbs", groupReaction}, {"feedback", groupReaction},
	}
}

// labelRank returns the precedence of a field name (lower wins) and false when the name
// is not an outcome field.
func labelRank(name string) (int, labelGroup, bool) {
	for i, k := range labelKeys() {
		if strings.EqualFold(name, k.name) {
			return i, k.group, true
		}
	}
	return 0, noGroup, false
}

// labelValue is one outcome value as the export wrote it: a JSON string, number or
// boolean, or the text of a CSV cell (kind text).
type labelValue struct {
	kind valueKind
	text string
	num  float64
	flag bool
}

type valueKind int

const (
	valueText valueKind = iota
	valueNumber
	valueBool
)

// verdict is what one field says about a conversation.
type verdict int

const (
	verdictUnreadable verdict = iota // present, but not an outcome this field can hold
	verdictNeutral                   // readable and deliberately neither (CSAT 3, "neutral")
	verdictFailed
	verdictSucceeded
)

// label returns the conversation label a verdict gives.
func (v verdict) label() transcript.Label {
	switch v {
	case verdictFailed:
		return transcript.LabelFailed
	case verdictSucceeded:
		return transcript.LabelSucceeded
	}
	return transcript.LabelNone
}

// judge is the pure core of label reading: what the value of an outcome field of the
// given group says.
func judge(g labelGroup, v labelValue) verdict {
	if v.kind == valueText {
		if n, ok := numberText(v.text); ok {
			v = labelValue{kind: valueNumber, num: n, text: v.text}
		}
	}
	switch g {
	case groupFlag:
		return judgeFlag(v)
	case groupWord:
		return judgeWord(v)
	case groupGraded:
		return judgeGraded(v)
	case groupRating:
		return judgeRating(v)
	case groupReaction:
		return judgeReaction(v)
	}
	return verdictUnreadable
}

func judgeFlag(v labelValue) verdict {
	switch v.kind {
	case valueBool:
		return boolVerdict(v.flag)
	case valueNumber:
		switch v.num {
		case 1:
			return verdictSucceeded
		case 0:
			return verdictFailed
		}
		return verdictUnreadable
	}
	switch fold(v.text) {
	case "true", "yes", "y":
		return verdictSucceeded
	case "false", "no", "n":
		return verdictFailed
	}
	return judgeWord(v)
}

func judgeWord(v labelValue) verdict {
	if v.kind != valueText {
		return verdictUnreadable
	}
	switch fold(v.text) {
	case "succeeded", "success", "successful", "resolved", "solved", "pass", "passed", "completed", "complete":
		return verdictSucceeded
	case "failed", "failure", "fail", "unresolved", "escalated", "abandoned", "unsolved":
		return verdictFailed
	}
	return verdictUnreadable
}

func judgeGraded(v labelValue) verdict {
	if v.kind != valueNumber || v.num < 0 || v.num > 1 {
		return verdictUnreadable
	}
	if v.num >= 0.5 {
		return verdictSucceeded
	}
	return verdictFailed
}

func judgeRating(v labelValue) verdict {
	switch v.kind {
	case valueNumber:
		switch {
		case v.num < 1 || v.num > 5:
			return verdictUnreadable
		case v.num <= 2:
			return verdictFailed
		case v.num >= 4:
			return verdictSucceeded
		}
		return verdictNeutral
	case valueBool:
		return verdictUnreadable
	}
	switch fold(v.text) {
	case "satisfied", "very satisfied", "positive", "good", "满意", "非常满意", "很满意", "比较满意", "十分满意":
		return verdictSucceeded
	case "dissatisfied", "very dissatisfied", "unsatisfied", "not satisfied", "negative", "bad",
		"不满意", "非常不满意", "很不满意", "不太满意", "十分不满意":
		return verdictFailed
	case "neutral", "一般", "还行":
		return verdictNeutral
	}
	return verdictUnreadable
}

func judgeReaction(v labelValue) verdict {
	switch v.kind {
	case valueBool:
		return boolVerdict(v.flag)
	case valueNumber:
		switch v.num {
		case 1:
			return verdictSucceeded
		case -1:
			return verdictFailed
		}
		return verdictUnreadable
	}
	switch fold(v.text) {
	case "up", "thumbs up", "thumbs_up", "thumbsup", "👍", "positive", "like":
		return verdictSucceeded
	case "down", "thumbs down", "thumbs_down", "thumbsdown", "👎", "negative", "dislike":
		return verdictFailed
	}
	return verdictUnreadable
}

func boolVerdict(b bool) verdict {
	if b {
		return verdictSucceeded
	}
	return verdictFailed
}

// fold makes word matching ignore case and surrounding space.
func fold(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// numberText reads a number written as text ("0.8", "+1", " 4 "), finite only.
func numberText(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	n, err := strconv.ParseFloat(strings.TrimPrefix(s, "+"), 64)
	if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
		return 0, false
	}
	return n, true
}

// labelCandidate is one outcome field found on a conversation: its name as the file
// wrote it (with where it was found: "metadata.success", a CSV column title) and value.
type labelCandidate struct {
	field string // shown to people: "metadata.success"
	key   string // the outcome field name it matched, for precedence
	value labelValue
}

// choice is the outcome read from a conversation's candidates: the label, the field it
// came from ("" when none gave one) and the candidates that could not be read.
type choice struct {
	label      transcript.Label
	field      string
	unreadable []labelCandidate
}

// chooseLabel applies the precedence: candidates are tried in the order of labelKeys
// (ties in file order); the first that says failed or succeeded gives the label. An
// unreadable candidate is reported and skipped; a neutral one (CSAT 3) gives no label
// and the next is tried.
func chooseLabel(cands []labelCandidate) choice {
	var c choice
	tried := make([]bool, len(cands))
	for range cands {
		best, bestRank := -1, 0
		for i, cand := range cands {
			if tried[i] {
				continue
			}
			rank, _, _ := labelRank(cand.key)
			if best < 0 || rank < bestRank {
				best, bestRank = i, rank
			}
		}
		tried[best] = true
		cand := cands[best]
		_, group, _ := labelRank(cand.key)
		switch v := judge(group, cand.value); v {
		case verdictUnreadable:
			c.unreadable = append(c.unreadable, cand)
		case verdictFailed, verdictSucceeded:
			c.label, c.field = v.label(), cand.field
			return c
		}
	}
	return c
}
