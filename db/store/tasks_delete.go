package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// DeleteTask deletes owner's task and, through the foreign keys, everything stored
// about it. A task that does not exist or belongs to someone else is ErrNotFound.
func (s *Store) DeleteTask(ctx context.Context, id uuid.UUID, owner Owner) error {
	n, err := s.q.DeleteAnalysisTask(ctx, s.pool, dbsqlc.DeleteAnalysisTaskParams{ID: id, OwnerUserID: owner.UserID()})
	if err != nil {
		return fmt.Errorf("store: delete task: %w", err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}
