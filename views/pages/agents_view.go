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

// featureWords splits a detector's feature into its kind (the catalog's feature.<kind>
// says it in words) and its text: "user:refund" is the user's word "refund".
func featureWords(feature string) (kind, text string) {
	for _, k := range []string{"user", "agent", "tool_error", "tool", "finding"} {
		if t, ok := strings.CutPrefix(feature, k+":"); ok {
			return k, t
		}
	}
	return "", feature
}
