package pages

import (
	"fmt"
	"time"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/views/components"
)

// LabelState is one conversation's outcome labels as the pages show them, with what the
// forms that change them need.
type LabelState struct {
	TaskID string
	Seq    int
	// Label is the conversation's outcome label ("failed", "succeeded"; empty without
	// one) and Source where it came from ("upload" or "reviewer").
	Label, Source string
	// Reviewed is what the owner said ("" when nothing, or they took it back) and
	// ReviewedAt when they last said or took it back; nil when never.
	Reviewed   string
	ReviewedAt *time.Time
	CSRFToken  string
	// ListQuery is the query of the list the conversation was opened from, which the
	// forms carry so that a browser without JavaScript comes back to the same page.
	ListQuery string
}

// Conflict reports whether the owner said otherwise than the upload's label, which
// wins: both are shown.
func (l LabelState) Conflict() bool {
	return l.Source == "upload" && l.Reviewed != "" && l.Reviewed != l.Label
}

// FormURL is where the forms post: the conversation's label, with the list's query.
func (l LabelState) FormURL(from string) string {
	u := fmt.Sprintf("/tasks/%s/conversations/%d/label?from=%s", l.TaskID, l.Seq, from)
	if l.ListQuery != "" {
		u += "&" + l.ListQuery
	}
	return u
}

// LabelProgress is what the task's agent has learned from its labels: how many of its
// kept, diagnosed conversations carry each outcome, out of the Min of each its detector
// needs, whether it has a detector, and whether it is learning now.
type LabelProgress struct {
	AgentID           int64
	Agent             string
	Failed, Succeeded int
	Min               int
	HasDetector       bool
	Learning          bool
}

// Enough reports whether the agent has the labels a detector needs.
func (p LabelProgress) Enough() bool { return p.Failed >= p.Min && p.Succeeded >= p.Min }

// AgentURL is the agent's page.
func (p LabelProgress) AgentURL() string { return components.AgentPath(p.AgentID) }

// counted is "3 of 10" when a count is short of the minimum, else the count alone.
func counted(l *locale.Localizer, n, least int) string {
	if n >= least {
		return l.Num(n)
	}
	return l.T("label.counted", "N", n, "Least", least)
}
