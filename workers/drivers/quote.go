package drivers

import (
	"strings"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// QuoteRunes is the longest quote Quote gives.
const QuoteRunes = 160

// Quote shows where a word driver is written in conv, one of its example conversations:
// the first turn of its side (the user's for KindUserWords, the agent's for
// KindAgentWords) with the word, or with the words of a pair side by side, and a quote
// around them. A word alone says little to whoever reads the driver ("the agent wrote:
// date"); the sentence it stands in says what it is about. ok is false for the other
// kinds, and when the words are not found as words of their own (inside a name joined
// by underscores, say); a pair whose words stand apart (across a comma) is shown by its
// first word.
func Quote(f Feature, conv transcript.Conversation) (turn int, quote string, ok bool) {
	var role transcript.Role
	switch f.Kind {
	case KindUserWords:
		role = transcript.RoleUser
	case KindAgentWords:
		role = transcript.RoleAssistant
	default:
		return 0, "", false
	}
	phrases := []string{f.Name}
	if first, second, pair := strings.Cut(f.Name, " "); pair {
		// Chinese counts by overlapping character pairs: "理退 退款" is written 理退款.
		if a, b := []rune(first), []rune(second); len(a) == 2 && len(b) == 2 && a[1] == b[0] {
			phrases[0] = string(a) + string(b[1])
		}
		phrases = append(phrases, first)
	}
	for _, p := range phrases {
		set := textmatch.NewPhraseSet(p)
		for i, m := range conv.Messages {
			if m.Role != role || m.Content == "" {
				continue
			}
			if at, found := set.Find(textmatch.Fold(m.Content)); found {
				return i + 1, textmatch.QuoteAround(m.Content, at.Start, at.End, QuoteRunes), true
			}
		}
	}
	return 0, "", false
}
