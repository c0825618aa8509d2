package agent

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChooseJoinsTheAgentWhosePromptItShares: a named agent is that one; else the
// known agent whose prompt shares at least SameAgentWords of its words (an edited
// prompt), the closest of several; else one named after the title.
func TestChooseJoinsTheAgentWhosePromptItShares(t *testing.T) {
	t.Parallel()
	airline := "You are an airline agent. You can book, modify or cancel flight reservations. Always confirm before you change a booking. Baggage allowance depends on the cabin class."
	edited := strings.Replace(airline, "Always confirm", "Always ask for an explicit yes", 1)
	retail := "You are a retail agent. You can cancel or modify pending orders, return or exchange delivered items, and update the user's address."
	known := []Known{{Name: "Shop", SystemPrompt: retail}, {Name: "Flights", SystemPrompt: airline}}
	require.Equal(t, "Mine", Choose("Mine", edited, "Weekly", known), "a name given wins")
	require.Equal(t, "Flights", Choose("", edited, "Weekly", known), "an edited prompt joins its agent")
	require.Equal(t, "Shop", Choose("", retail, "Weekly", known))
	require.Equal(t, "Weekly", Choose("", "You are a travel insurance claims assistant for cyclists.", "Weekly", known), "a new prompt is a new agent")
	require.Equal(t, "Weekly", Choose("", "", "Weekly", known), "no prompt: by its title")
	require.GreaterOrEqual(t, PromptShare(airline, edited), SameAgentWords)
	require.Less(t, PromptShare(airline, retail), SameAgentWords)
	require.Zero(t, PromptShare("", airline))
}
