package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// Task reads owner's task row. A task that does not exist or belongs to someone else
// is ErrNotFound.
func (s *Store) Task(ctx context.Context, id uuid.UUID, owner Owner) (dbsqlc.AnalysisTask, error) {
	t, err := s.q.GetAnalysisTask(ctx, s.pool, dbsqlc.GetAnalysisTaskParams{ID: id, OwnerUserID: owner.UserID()})
	if errors.Is(err, pgx.ErrNoRows) {
		return t, ErrNotFound
	}
	if err != nil {
		return t, fmt.Errorf("store: task: %w", err)
	}
	return t, nil
}
