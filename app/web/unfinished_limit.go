package web

import (
	"context"
	"fmt"
	"net/http"

	"github.com/checkup-dev/checkup/db/store"
)

// tooManyUnfinished is the refusal of an upload or re-run while the user has
// MAX_UNFINISHED_TASKS diagnoses waiting or running. The workers take the oldest task
// first, whoever's it is, so one user's batch would otherwise hold everyone else's.
func (s *Server) tooManyUnfinished() *formError {
	return &formError{http.StatusTooManyRequests, fmt.Sprintf(
		"You already have %d diagnoses waiting or running, the most one person may have at once. "+
			"Start this one once one of them has finished, or cancel one you no longer need.", s.deps.Config.MaxUnfinishedTasks), fieldFile}
}

// roomForATask refuses an upload before its file is read when the user has no room
// for another task; the count that holds is the one the upload's commit makes.
func (s *Server) roomForATask(ctx context.Context, owner store.Owner) error {
	limit := s.deps.Config.MaxUnfinishedTasks
	if limit == 0 {
		return nil
	}
	n, err := s.store.UnfinishedTasks(ctx, owner)
	if err != nil {
		return err
	}
	if n >= limit {
		return s.tooManyUnfinished()
	}
	return nil
}
