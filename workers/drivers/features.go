package drivers

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// maxWordFeatures bounds the word features one conversation contributes per side: a
// very long conversation says no more about its outcome than its first few thousand
// words do.
const maxWordFeatures = 400

// Extract lists the features of one labelled conversation: the tools it called, the
// tools whose results were errors (errorTurns are the turns of those results, as risk
// screening flags them), the categories of its findings, and the words and word pairs
// of each side. Words are folded and split at anything but letters and digits (so at
// underscores too), function words and words with a digit (ids, amounts) left out;
// Chinese counts by character pairs.
func Extract(seq int, failed bool, conv transcript.Conversation, errorTurns []int, categories []string) Conversation {
	return extract(seq, failed, conv, errorTurns, categories, sides{user: true, agent: true})
}

// sides says whose words extract reads: they are most of its work.
type sides struct{ user, agent bool }

func extract(seq int, failed bool, conv transcript.Conversation, errorTurns []int, categories []string, words sides) Conversation {
	c := Conversation{Seq: seq, Failed: failed}
	var tools transcript.ToolNames
	errored := map[int]bool{}
	for _, t := range errorTurns {
		errored[t] = true
	}
	user, agent := wordSet(words.user), wordSet(words.agent)
	for i, m := range conv.Messages {
		if m.Role != transcript.RoleSystem {
			c.Turns++
		}
		switch m.Role {
		case transcript.RoleUser:
			c.UserTurns++
			if words.user {
				addWords(user, m.Content)
			}
		case transcript.RoleAssistant:
			if words.agent {
				addWords(agent, m.Content)
			}
			for _, tc := range m.ToolCalls {
				c.Features = append(c.Features, Feature{KindTool, tc.Name})
			}
			tools.Called(m)
		case transcript.RoleTool:
			if name := tools.Answered(m); errored[i+1] && name != "" {
				c.Features = append(c.Features, Feature{KindToolError, name})
			}
		}
	}
	c.Features = slices.Grow(c.Features, len(categories)+len(user)+len(agent))
	for _, cat := range categories {
		c.Features = append(c.Features, Feature{KindCategory, cat})
	}
	c.Features = appendWords(c.Features, KindUserWords, user)
	c.Features = appendWords(c.Features, KindAgentWords, agent)
	return c
}

// addWords adds the words and adjacent word pairs of text to set, up to maxWordFeatures.
// A word is a slice of the folded text (textmatch.EachTerm), copied when kept so that
// the search's counts do not pin whole messages; a pair is looked up in a buffer of
// its own and copied only when new.
func addWords(set map[string]bool, text string) {
	prev := ""
	var pair []byte
	for t := range textmatch.EachTerm(text) {
		if len(set) >= maxWordFeatures {
			return
		}
		if !wordFeature(t) {
			prev = ""
			continue
		}
		if !set[t] {
			set[strings.Clone(t)] = true
		}
		if prev != "" {
			pair = append(append(append(pair[:0], prev...), ' '), t...)
			if !set[string(pair)] {
				set[string(pair)] = true
			}
		}
		prev = t
	}
}

// wordSet is the set one side's words are added to: when that side is read, made at
// the size a long conversation's words reach, since growing it entry by entry was a
// tenth of the extraction.
func wordSet(read bool) map[string]bool {
	if !read {
		return nil
	}
	return make(map[string]bool, maxWordFeatures)
}

// wordFeature reports whether a term counts as a word: two characters or more, not a
// function word, without a digit or an underscore.
func wordFeature(t string) bool {
	if len(t) < 2 { // fewer than two bytes cannot be two characters
		return false
	}
	chars := 0
	for _, r := range t {
		if '0' <= r && r <= '9' || r == '_' || r >= utf8.RuneSelf && unicode.IsDigit(r) {
			return false
		}
		chars++
	}
	return chars >= 2 && !textmatch.Stopword(t)
}

func appendWords(fs []Feature, kind string, set map[string]bool) []Feature {
	for w := range set {
		fs = append(fs, Feature{kind, w})
	}
	return fs
}
