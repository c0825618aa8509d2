package web

import (
	"context"
	"net/http"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
)

// What a refusal over MAX_UNFINISHED_TASKS asks the user to do again: the catalog's
// messages.
const (
	uploadAgain = "unfinished.upload_again"
	rerunAgain  = "unfinished.rerun_again"
)

// tooManyUnfinished is the refusal of an upload or re-run while the user has
// MAX_UNFINISHED_TASKS diagnoses waiting or running. The workers take the oldest task
// first, whoever's it is, so one user's batch would otherwise hold everyone else's.
func (s *Server) tooManyUnfinished(again string) *formError {
	return &formError{http.StatusTooManyRequests, locale.Msg("unfinished.refused", "Count", s.deps.Config.MaxUnfinishedTasks,
		"Again", locale.Msg(again)), fieldFile}
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
