package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers"
)

// finish decides how the task ended (step 7 of docs/architecture.md#pipeline-stages)
// from what is stored: partial when some conversations were isolated or some Actions
// could not be written (the message counts both), completed otherwise. The worker
// writes the status.
func (r *run) finish(ctx context.Context, counts dbsqlc.CountConversationDiagnosesRow) (workers.Outcome, error) {
	if err := r.lease.Progress(ctx, taskstate.Finishing, 1, 1); err != nil {
		return workers.Outcome{}, err
	}
	actions, err := r.actionCheckpoints(ctx)
	if err != nil {
		return workers.Outcome{}, err
	}
	failed := 0
	for _, a := range actions {
		if !a.Status.Written() {
			failed++
		}
	}
	var problems []string
	if counts.Isolated > 0 {
		problems = append(problems, fmt.Sprintf("%d of %d conversations could not be diagnosed and are left out",
			counts.Isolated, counts.Selected))
	}
	if failed > 0 {
		problems = append(problems, fmt.Sprintf("%d of %d Actions could not be written", failed, len(actions)))
	}
	if len(problems) == 0 {
		return workers.Outcome{Status: taskstate.Completed}, nil
	}
	return workers.Outcome{
		Status: taskstate.Partial,
		Error:  "Partly done: " + strings.Join(problems, "; ") + ". The warnings name each one.",
	}, nil
}

// nothingDiagnosed ends a task none of whose selected conversations could be
// diagnosed, with the first conversation's error as the reason.
func (r *run) nothingDiagnosed(ctx context.Context, counts dbsqlc.CountConversationDiagnosesRow) (workers.Outcome, error) {
	msg := fmt.Sprintf("None of the %d conversations selected for diagnosis could be diagnosed.", counts.Selected)
	first, err := r.q.FirstConversationError(ctx, r.p.pool, dbsqlc.FirstConversationErrorParams{TaskID: r.id, OwnerUserID: r.owner})
	if err != nil {
		return workers.Outcome{}, fmt.Errorf("pipeline: first diagnosis error: %w", err)
	}
	if len(first) > 0 {
		msg += fmt.Sprintf(" The first error (conversation %s): %s", first[0].ExternalID, first[0].DiagnosisError)
	}
	return workers.Outcome{Status: taskstate.Failed, Error: msg}, nil
}
