package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// ConversationRows is what the conversation page shows: the task it belongs to, the
// conversation with its messages, and the findings made about it.
type ConversationRows struct {
	Task         dbsqlc.AnalysisTask
	Conversation dbsqlc.TaskConversation
	Findings     []dbsqlc.TaskFinding
}

// Conversation reads conversation seq of owner's task id in one read-only snapshot. A
// task or conversation that does not exist, or a task of someone else, is ErrNotFound.
func (s *Store) Conversation(ctx context.Context, id uuid.UUID, seq int32, owner Owner) (ConversationRows, error) {
	var r ConversationRows
	uid := owner.UserID()
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			var err error
			if r.Task, err = s.q.GetAnalysisTask(ctx, tx, dbsqlc.GetAnalysisTaskParams{ID: id, OwnerUserID: uid}); err != nil {
				return err
			}
			if r.Conversation, err = s.q.GetTaskConversation(ctx, tx, dbsqlc.GetTaskConversationParams{
				TaskID: id, OwnerUserID: uid, Seq: seq}); err != nil {
				return err
			}
			r.Findings, err = s.q.ListConversationFindings(ctx, tx, dbsqlc.ListConversationFindingsParams{
				TaskID: id, OwnerUserID: uid, Seq: seq})
			return err
		})
	if errors.Is(err, pgx.ErrNoRows) {
		return ConversationRows{}, ErrNotFound
	}
	if err != nil {
		return ConversationRows{}, fmt.Errorf("store: conversation: %w", err)
	}
	return r, nil
}
