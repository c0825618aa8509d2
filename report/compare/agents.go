package compare

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// sameAgentWords is the share of their words two system prompts of one agent keep in
// common at least: an edited prompt keeps most of its words, while the prompts of two
// agents share little beyond the words every prompt uses (an airline's and a
// retailer's policy of the sample data share about a third).
const sameAgentWords = 0.5

// DifferentAgents reports whether two runs look like diagnoses of different agents:
// both have a system prompt and the two share fewer than sameAgentWords of their
// distinct words (Jaccard). Without a system prompt on either side it cannot tell and
// says no.
func DifferentAgents(systemA, systemB string) bool {
	a, b := wordSet(systemA), wordSet(systemB)
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	shared := 0
	for w := range a {
		if b[w] {
			shared++
		}
	}
	return float64(shared) < sameAgentWords*float64(len(a)+len(b)-shared)
}

// SystemPrompt is the system prompt of a conversation as stored (its messages' JSON):
// its system messages' text, one after another, as the offline analyzer reads the
// policy; "" when it has none.
func SystemPrompt(messages []byte) (string, error) {
	var msgs []transcript.Message
	if err := json.Unmarshal(messages, &msgs); err != nil {
		return "", fmt.Errorf("compare: stored messages: %w", err)
	}
	var parts []string
	for _, m := range msgs {
		if m.Role == transcript.RoleSystem {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n"), nil
}

func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, t := range textmatch.Terms(s) {
		set[t] = true
	}
	return set
}
