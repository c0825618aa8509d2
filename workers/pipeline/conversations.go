package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strconv"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/risk"
)

// pageSize is how many conversations have their verdicts and flags written, and their
// findings or flags read, at a time: a large upload streams through in pages instead of
// being held whole, and a page's writes are one fenced statement instead of one
// transaction per row. Transcripts are read readPage at a time.
const pageSize = 500

// keptBudget bounds the transcripts a run keeps decoded from its quality pass for
// diagnosis, in bytes of their stored JSON: a task this small (some hundreds of
// conversations) is read and decoded once, a larger one is read again page by page.
const keptBudget = 8 << 20

// storedConversation is a conversation read back from task_conversation.
type storedConversation struct {
	seq  int32
	conv transcript.Conversation
	size int // the length of its stored messages JSON
	// label is the outcome the upload recorded, and flags what the risk screen of the
	// quality pass found: what the offline diagnosis and the search for failure drivers
	// read besides the transcript.
	label transcript.Label
	flags []risk.Flag
}

// keptConversations are the kept conversations of a task, decoded by the quality pass
// and held for diagnosis while they fit in keptBudget.
type keptConversations struct {
	bySeq map[int32]storedConversation
	size  int
}

// add keeps c, or drops every conversation kept so far once they no longer fit all.
func (k *keptConversations) add(c storedConversation) {
	if k.bySeq == nil {
		return
	}
	if k.size += c.size; k.size > keptBudget {
		k.bySeq = nil
		return
	}
	k.bySeq[c.seq] = c
}

// name is how warnings and logs refer to a conversation: its id, or its position.
func (c storedConversation) name() string {
	if c.conv.ID != "" {
		return c.conv.ID
	}
	return "#" + strconv.Itoa(int(c.seq))
}

func decodeConversation(seq int32, id string, messages string, label *string) (storedConversation, error) {
	c := storedConversation{seq: seq, conv: transcript.Conversation{ID: id}, size: len(messages)}
	if label != nil {
		c.label = transcript.Label(*label)
	}
	var err error
	if c.conv.Messages, err = decodeMessages(messages); err != nil {
		return c, fmt.Errorf("pipeline: conversation %d: messages: %w", seq, err)
	}
	return c, nil
}

// toolErrorTurns are the turns flags mark as tool errors.
func toolErrorTurns(flags []risk.Flag) []int {
	var turns []int
	for _, f := range flags {
		if f.Kind == risk.KindToolError {
			turns = append(turns, f.Turn)
		}
	}
	return turns
}

// conversationsToDiagnose yields, one by one, the selected conversations not yet
// diagnosed or isolated: from the run's kept conversations when the quality pass held
// them all, otherwise read and decoded a page at a time on a goroutine of its own while
// the units diagnose the page before.
func (r *run) conversationsToDiagnose(ctx context.Context) iter.Seq2[storedConversation, error] {
	if r.kept != nil && r.kept.bySeq != nil {
		return r.keptToDiagnose(ctx)
	}
	return func(yield func(storedConversation, error) bool) {
		for convs, err := range readAhead(ctx, r.lease.Task.ConversationCount, r.readToDiagnose) {
			if err != nil {
				yield(storedConversation{}, err)
				return
			}
			for _, c := range convs {
				if !yield(c, nil) {
					return
				}
			}
		}
	}
}

// readToDiagnose reads and decodes the conversations to diagnose of the seqs
// after..through.
func (r *run) readToDiagnose(ctx context.Context, after, through int32) ([]storedConversation, error) {
	rows, err := r.q.ListConversationsToDiagnose(ctx, r.p.pool, dbsqlc.ListConversationsToDiagnoseParams{
		TaskID: r.id, OwnerUserID: r.owner, AfterSeq: after, ThroughSeq: through,
	})
	if err != nil {
		return nil, fmt.Errorf("pipeline: read conversations to diagnose: %w", err)
	}
	convs := make([]storedConversation, len(rows))
	for i, row := range rows {
		if convs[i], err = decodeConversation(row.Seq, row.ExternalID, row.Messages, row.Label); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(row.RiskFlags, &convs[i].flags); err != nil {
			return nil, fmt.Errorf("pipeline: conversation %d: risk flags: %w", row.Seq, err)
		}
	}
	return convs, nil
}

// keptToDiagnose yields the selected conversations not finished yet from the
// conversations the quality pass kept decoded, reading only their seqs.
func (r *run) keptToDiagnose(ctx context.Context) iter.Seq2[storedConversation, error] {
	return func(yield func(storedConversation, error) bool) {
		seqs, err := r.q.ListSeqsToDiagnose(ctx, r.p.pool, dbsqlc.ListSeqsToDiagnoseParams{TaskID: r.id, OwnerUserID: r.owner})
		if err != nil {
			yield(storedConversation{}, fmt.Errorf("pipeline: read conversations to diagnose: %w", err))
			return
		}
		for _, seq := range seqs {
			c, ok := r.kept.bySeq[seq]
			if !ok {
				yield(c, fmt.Errorf("pipeline: conversation %d is selected for diagnosis but was not kept by the quality checks", seq))
				return
			}
			if !yield(c, nil) {
				return
			}
		}
	}
}
