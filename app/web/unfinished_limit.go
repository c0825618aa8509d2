package web

import (
	"context"
	"net/http"

	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/views/components"
)

// What a refusal over MAX_UNFINISHED_TASKS asks the user to do again.
const (
	uploadAgain = "Upload this file again"
	rerunAgain  = "Run this diagnosis again"
)

// tooManyUnfinished is the refusal of an upload or re-run while the user has
// MAX_UNFINISHED_TASKS diagnoses waiting or running. The workers take the oldest task
// first, whoever's it is, so one user's batch would otherwise hold everyone else's.
func (s *Server) tooManyUnfinished(again string) *formError {
	return &formError{http.StatusTooManyRequests, "You already have " +
		components.Plural(s.deps.Config.MaxUnfinishedTasks, "diagnosis", "diagnoses") +
		" waiting or running, the most one person may have at once. " + again +
		" once one of them has finished, or cancel one you no longer need.", fieldFile}
}

// roomForATask refuses an upload when the user has no room for another task; the count
// that holds is the one the upload's commit makes.
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
		return s.tooManyUnfinished(uploadAgain)
	}
	return nil
}
