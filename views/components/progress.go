package components

import (
	"time"

	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/report"
)

// Progress is what the live progress shows about a task. The polling fragment fills it
// from one indexed query; the full page from the report.
type Progress struct {
	TaskID          string
	Status          taskstate.Status
	Stage           taskstate.Stage
	Done, Total     int
	Attempt         int
	LostCount       int
	Error           string
	CancelRequested bool
	// ProviderDownSince is set while the task's model calls wait for a provider that
	// does not answer.
	ProviderDownSince *time.Time
}

// ProgressOf takes the progress out of a report's task.
func ProgressOf(t report.Task) Progress {
	return Progress{TaskID: t.ID, Status: t.Status, Stage: t.Stage, Done: t.ProgressDone, Total: t.ProgressTotal,
		Attempt: t.Attempt, LostCount: t.LostCount, Error: t.Error, CancelRequested: t.CancelRequestedAt != nil,
		ProviderDownSince: t.ProviderDownSince}
}

// Terminal reports whether the task has finished, so polling stops.
func (p Progress) Terminal() bool { return p.Status.Terminal() }

// Percent is the share of the current stage done, 0..100.
func (p Progress) Percent() int {
	if p.Total <= 0 {
		return 0
	}
	return min(100, p.Done*100/p.Total)
}

// PollURL is the address the progress polls; row selects the task list's cell.
func (p Progress) PollURL(row bool) string {
	u := TaskPath(p.TaskID, "progress")
	if row {
		u += "?view=row"
	}
	return u
}
