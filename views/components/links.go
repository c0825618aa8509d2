package components

import (
	"fmt"
	"net/url"
	"time"

	"github.com/a-h/templ"
)

// ClusterConversationsURL is the list of every conversation of a task's cluster idx.
func ClusterConversationsURL(taskID string, idx int) templ.SafeURL {
	return templ.SafeURL(fmt.Sprintf("/tasks/%s/conversations?cluster=%d", taskID, idx))
}

// RiskConversationsURL is the list of every conversation of a task flagged with a risk
// of kind.
func RiskConversationsURL(taskID, kind string) templ.SafeURL {
	return templ.SafeURL(fmt.Sprintf("/tasks/%s/conversations?risk=%s", taskID, url.QueryEscape(kind)))
}

// DriverConversationsURL is the list of every labelled conversation with a task's
// failure driver idx.
func DriverConversationsURL(taskID string, idx int) templ.SafeURL {
	return templ.SafeURL(fmt.Sprintf("/tasks/%s/conversations?driver=%d", taskID, idx))
}

// ClusterPath is a path under a task's cluster, e.g. ClusterPath(id, 3, "expected").
func ClusterPath(taskID string, idx int, rest string) string {
	return fmt.Sprintf("/tasks/%s/clusters/%d/%s", taskID, idx, rest)
}

// Review is what the forms that mark clusters expected behaviour need: the task, the
// CSRF token a plain form carries, whether marks can be made (the diagnosis has
// finished), the clusters the owner marked whose rule has since been removed, and the
// diagnosis the rule of a cluster was made on when it is another one.
type Review struct {
	TaskID    string
	CSRFToken string
	Open      bool
	RuleGone  map[int]bool
	RuleFrom  map[int]RuleSource
}

// RuleSource is the diagnosis an owner's rule was made on.
type RuleSource struct {
	TaskID, Title string
	Started       time.Time
}
