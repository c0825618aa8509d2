package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// orderedChunk is how many conversations of a given order one read checks against
// the list's filters: a page without filters is found in one read, and a rare filter
// walks a large task in a few hundred.
const orderedChunk = 500

// ConversationsInOrder reads up to limit of owner's task's kept conversations that f
// lets through, taken in the order of order (seqs; one the caller chose, such as the
// conversations most useful to label) rather than by a sort of the list, in one
// read-only snapshot with the task and the names of its clusters and drivers. f.Sort
// and f.After are not read: the caller starts order where the page starts. Next is
// set, with only its Seq, when order holds more of them.
func (s *Store) ConversationsInOrder(ctx context.Context, id uuid.UUID, owner Owner, f ConversationFilter, order []int32, limit int) (ConversationList, error) {
	var l ConversationList
	uid := owner.UserID()
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			if err := s.readMenus(ctx, tx, id, uid, &l); err != nil {
				return err
			}
			f.After = nil
			for rest := order; len(rest) > 0 && len(l.Conversations) <= limit; {
				chunk := rest[:min(orderedChunk, len(rest))]
				rest = rest[len(chunk):]
				p := listParams(id, uid, f, len(chunk))
				p.Seqs = chunk
				rows, err := s.q.ListTaskConversations(ctx, planned{tx}, p)
				if err != nil {
					return err
				}
				place := make(map[int32]int, len(chunk))
				for i, seq := range chunk {
					place[seq] = i
				}
				slices.SortFunc(rows, func(a, b dbsqlc.ListTaskConversationsRow) int { return place[a.Seq] - place[b.Seq] })
				l.Conversations = append(l.Conversations, rows...)
			}
			return nil
		})
	if err != nil {
		return ConversationList{}, readError("conversations in order", err)
	}
	if len(l.Conversations) > limit {
		l.Conversations = l.Conversations[:limit]
		l.Next = &ConversationCursor{Seq: l.Conversations[limit-1].Seq}
	}
	return l, nil
}

// LabelCandidates reads what choosing the conversations most useful to label reads of
// owner's task: its kept, diagnosed conversations in upload order (ListLabelCandidates).
func (s *Store) LabelCandidates(ctx context.Context, id uuid.UUID, owner Owner) ([]dbsqlc.ListLabelCandidatesRow, error) {
	rows, err := s.q.ListLabelCandidates(ctx, s.pool, dbsqlc.ListLabelCandidatesParams{TaskID: id, OwnerUserID: owner.UserID()})
	if err != nil {
		return nil, fmt.Errorf("store: label candidates: %w", err)
	}
	return rows, nil
}
