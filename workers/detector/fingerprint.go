package detector

import (
	"hash/fnv"
	"slices"
	"strings"
	"unicode"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// Fingerprint is what tells scenarios apart: the identifiers the user and the agent's
// tool calls mention (an account, an order, a booking code: words with a digit, four
// characters or more) and the words the user writes. The same scenario retried shares
// many of them; cross-validation keeps such conversations on one side of a fold
// (Groups). Both are sorted sets of hashes.
type Fingerprint struct {
	Marks []uint64
	Words []uint64
}

// TakeFingerprint reads conv's fingerprint.
func TakeFingerprint(conv transcript.Conversation) Fingerprint {
	marks, words := map[uint64]bool{}, map[uint64]bool{}
	addMarks := func(t string) {
		if len([]rune(t)) >= 4 && strings.ContainsFunc(t, unicode.IsDigit) {
			marks[hashTerm(t)] = true
		}
	}
	for _, m := range conv.Messages {
		switch m.Role {
		case transcript.RoleUser:
			for t := range textmatch.EachTerm(m.Content) {
				addMarks(t)
				if len([]rune(t)) >= 3 || !isASCII(t) {
					words[hashTerm(t)] = true
				}
			}
		case transcript.RoleAssistant:
			for _, tc := range m.ToolCalls {
				for t := range textmatch.EachTerm(tc.Arguments) {
					addMarks(t)
				}
			}
		}
	}
	return Fingerprint{Marks: sortedKeys(marks), Words: sortedKeys(words)}
}

func isASCII(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r > unicode.MaxASCII })
}

func sortedKeys(set map[uint64]bool) []uint64 {
	out := make([]uint64, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// hashTerm is a term's 64-bit FNV-1a hash: the same in every process.
func hashTerm(t string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(t))
	return h.Sum64()
}
