package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// Rerun is the task a re-run created.
type Rerun struct {
	ID            uuid.UUID
	Conversations int
}

// RerunTask starts a new pending task for owner from the conversations of task id, and
// wakes the workers, in one transaction. The results of the old task are left as they
// are. A task that does not exist or belongs to someone else is ErrNotFound.
func (s *Store) RerunTask(ctx context.Context, id uuid.UUID, owner Owner) (Rerun, error) {
	row, err := s.q.RerunAnalysisTask(ctx, s.pool, dbsqlc.RerunAnalysisTaskParams{ID: id, OwnerUserID: owner.UserID()})
	if errors.Is(err, pgx.ErrNoRows) {
		return Rerun{}, ErrNotFound
	}
	if err != nil {
		return Rerun{}, fmt.Errorf("store: rerun task: %w", err)
	}
	return Rerun{ID: row.ID, Conversations: int(row.Conversations)}, nil
}
