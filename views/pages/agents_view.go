package pages

import (
	"strings"
	"time"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/workers/detector"
)

// AgentsView is the owner's agents, newest first.
type AgentsView struct {
	Agents []AgentCard
}

// AgentCard is one agent as the agents' pages show it: its labels and whether it is
// learning (Progress), its detector (Model, nil without one) and its runs.
type AgentCard struct {
	Progress  LabelProgress
	Model     *detector.Summary
	Runs      int
	LastRunAt time.Time
}

// AgentView is one agent's page: its card and its latest diagnoses (MoreTasks: it has
// more than are listed).
type AgentView struct {
	Agent     AgentCard
	Tasks     []dbsqlc.ListAgentTasksRow
	MoreTasks bool
}

// featureWords splits a detector's feature into what it is and its text: "user:refund"
// is the user's word "refund".
func featureWords(feature string) (kind, text string) {
	for _, k := range []struct{ prefix, words string }{
		{"user:", "the user says"}, {"agent:", "the agent says"}, {"tool_error:", "a tool returns an error"},
		{"tool:", "the agent calls"}, {"finding:", "a finding of"},
	} {
		if t, ok := strings.CutPrefix(feature, k.prefix); ok {
			return k.words, t
		}
	}
	return "", feature
}
