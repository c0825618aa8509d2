package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// TaskProgress reads what the polling fragment shows: one primary-key lookup, so the
// pages can poll every two seconds without weighing on the database.
func (s *Store) TaskProgress(ctx context.Context, id uuid.UUID, owner Owner) (dbsqlc.GetAnalysisProgressRow, error) {
	row, err := s.q.GetAnalysisProgress(ctx, s.pool, dbsqlc.GetAnalysisProgressParams{ID: id, OwnerUserID: owner.UserID()})
	if errors.Is(err, pgx.ErrNoRows) {
		return row, ErrNotFound
	}
	if err != nil {
		return row, fmt.Errorf("store: task progress: %w", err)
	}
	return row, nil
}
