package compare

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/agent"
)

// DifferentAgents reports whether two runs look like diagnoses of different agents:
// both have a system prompt and the two share fewer than agent.SameAgentWords of their
// distinct words (Jaccard). Without a system prompt on either side it cannot tell and
// says no.
func DifferentAgents(systemA, systemB string) bool {
	if strings.TrimSpace(systemA) == "" || strings.TrimSpace(systemB) == "" {
		return false
	}
	return agent.PromptShare(systemA, systemB) < agent.SameAgentWords
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
