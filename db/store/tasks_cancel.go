package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
)

// CancelTask asks owner's task to stop and returns its status afterwards: a pending
// task is canceled at once; a running one stays running until its worker, told
// through a notification (or at its next heartbeat), stops and ends it canceled. A
// finished task is left as it is and its status returned. A task that does not exist
// or belongs to someone else is ErrNotFound.
func (s *Store) CancelTask(ctx context.Context, id uuid.UUID, owner Owner) (taskstate.Status, error) {
	row, err := s.q.RequestTaskCancel(ctx, s.pool, dbsqlc.RequestTaskCancelParams{ID: id, OwnerUserID: owner.UserID()})
	if err == nil {
		return row.Status, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("store: cancel task: %w", err)
	}
	progress, err := s.TaskProgress(ctx, id, owner)
	if err != nil {
		return "", err
	}
	return progress.Status, nil
}
