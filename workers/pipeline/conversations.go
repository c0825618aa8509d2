package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strconv"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/workers/transcript"
)

// pageSize is how many conversations are read, and their verdicts or flags written,
// at a time: a large upload streams through in pages instead of being held whole, and
// a page's writes are one fenced statement instead of one transaction per row.
const pageSize = 500

// storedConversation is a conversation read back from task_conversation.
type storedConversation struct {
	seq  int32
	conv transcript.Conversation
}

// name is how warnings and logs refer to a conversation: its id, or its position.
func (c storedConversation) name() string {
	if c.conv.ID != "" {
		return c.conv.ID
	}
	return "#" + strconv.Itoa(int(c.seq))
}

func decodeConversation(seq int32, id string, messages string) (storedConversation, error) {
	c := storedConversation{seq: seq, conv: transcript.Conversation{ID: id}}
	if err := json.Unmarshal([]byte(messages), &c.conv.Messages); err != nil {
		return c, fmt.Errorf("pipeline: conversation %d: messages: %w", seq, err)
	}
	return c, nil
}

// conversationPages yields the task's conversations page by page in upload order.
func (r *run) conversationPages(ctx context.Context) iter.Seq2[[]storedConversation, error] {
	return func(yield func([]storedConversation, error) bool) {
		after := int32(0)
		for {
			rows, err := r.q.ListConversationsAfter(ctx, r.p.pool, dbsqlc.ListConversationsAfterParams{
				TaskID: r.id, OwnerUserID: r.owner, AfterSeq: after, MaxRows: pageSize,
			})
			if err != nil {
				yield(nil, fmt.Errorf("pipeline: read conversations: %w", err))
				return
			}
			if len(rows) == 0 {
				return
			}
			page := make([]storedConversation, 0, len(rows))
			for _, row := range rows {
				c, err := decodeConversation(row.Seq, row.ExternalID, row.Messages)
				if err != nil {
					yield(nil, err)
					return
				}
				page = append(page, c)
			}
			after = rows[len(rows)-1].Seq
			if !yield(page, nil) {
				return
			}
		}
	}
}

// conversationsToDiagnose yields, one by one, the selected conversations not yet
// diagnosed or isolated, reading a page at a time.
func (r *run) conversationsToDiagnose(ctx context.Context) iter.Seq2[storedConversation, error] {
	return func(yield func(storedConversation, error) bool) {
		after := int32(0)
		for {
			rows, err := r.q.ListConversationsToDiagnose(ctx, r.p.pool, dbsqlc.ListConversationsToDiagnoseParams{
				TaskID: r.id, OwnerUserID: r.owner, AfterSeq: after, MaxRows: pageSize,
			})
			if err != nil {
				yield(storedConversation{}, fmt.Errorf("pipeline: read conversations to diagnose: %w", err))
				return
			}
			if len(rows) == 0 {
				return
			}
			for _, row := range rows {
				c, err := decodeConversation(row.Seq, row.ExternalID, row.Messages)
				if !yield(c, err) || err != nil {
					return
				}
			}
			after = rows[len(rows)-1].Seq
		}
	}
}
