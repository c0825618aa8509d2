package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/workers/transcript"
)

// NewTask is a task to create from an upload.
type NewTask struct {
	Title          string
	Config         json.RawMessage // analysis_task.config; empty means {}
	SourceFilename string
	SourceBytes    int64
	// Conversations hands each conversation of the upload to emit, in file order, and
	// returns the format it read. It runs inside the creating transaction, so an error
	// (a file refused halfway through) leaves nothing stored. ingest.Parse fits it:
	//
	//	func(emit func(transcript.Conversation) error) (string, error) {
	//		sum, err := ingest.Parse(r, limits, emit)
	//		return sum.Format, err
	//	}
	Conversations func(emit func(transcript.Conversation) error) (format string, err error)
	// Finish, when set, is called once Conversations has returned without error, still
	// inside the transaction, for what a streamed upload learns only at its end.
	Finish func() UploadEnd
}

// UploadEnd is what a streamed upload knows only once it has been read to the end: the
// size of the file, a title field that followed the file in the form, and what the
// parser changed on the way in.
type UploadEnd struct {
	Title       string // replaces NewTask.Title when not empty
	SourceBytes int64  // replaces NewTask.SourceBytes when above zero
	// Warnings are stored as task warnings of stage "upload", in order, so the owner
	// sees them on the task page (a duplicate conversation id renamed, say).
	Warnings []UploadWarning
}

// UploadWarning is one thing changed on the way in, and where in the file.
type UploadWarning struct {
	Scope   string // "line 17"; empty for the whole file
	Message string
}

// uploadStage is the stage name of the warnings an upload leaves.
const uploadStage = "upload"

// copyBatch is how many conversations are held in memory between two COPYs: a large
// upload streams through in batches instead of being held whole.
const copyBatch = 500

// CreateTask creates owner's task and its conversations, and wakes the workers, in one
// transaction: a task is never visible without its conversations, and it is claimed
// as soon as it commits. The conversations are written with COPY, seq numbered from 1
// in file order.
func (s *Store) CreateTask(ctx context.Context, task NewTask, owner Owner) (uuid.UUID, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return uuid.Nil, fmt.Errorf("store: create task: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }() // a no-op after Commit
	config := task.Config
	if len(config) == 0 {
		config = json.RawMessage(`{}`)
	}
	id, err := s.q.CreateTask(ctx, tx, dbsqlc.CreateTaskParams{
		OwnerUserID:    owner.UserID(),
		Title:          task.Title,
		Config:         config,
		SourceFilename: task.SourceFilename,
		SourceBytes:    task.SourceBytes,
	})
	if err != nil {
		return uuid.Nil, fmt.Errorf("store: create task: %w", err)
	}
	w := &conversationWriter{ctx: ctx, tx: tx, task: id, owner: owner.UserID()}
	format, err := task.Conversations(w.add)
	if err != nil {
		return uuid.Nil, fmt.Errorf("store: create task: %w", err)
	}
	if err := w.flush(); err != nil {
		return uuid.Nil, err
	}
	var end UploadEnd
	if task.Finish != nil {
		end = task.Finish()
	}
	for _, warning := range end.Warnings {
		if err := s.q.InsertTaskWarning(ctx, tx, dbsqlc.InsertTaskWarningParams{
			TaskID: id, OwnerUserID: owner.UserID(), Stage: uploadStage, Scope: warning.Scope, Message: warning.Message,
		}); err != nil {
			return uuid.Nil, fmt.Errorf("store: create task: warning: %w", err)
		}
	}
	if _, err := s.q.SetTaskConversationCount(ctx, tx, dbsqlc.SetTaskConversationCountParams{
		ID: id, OwnerUserID: owner.UserID(), ConversationCount: w.seq, SourceFormat: format,
		Title: cmp.Or(end.Title, task.Title), SourceBytes: cmp.Or(max(end.SourceBytes, 0), task.SourceBytes),
	}); err != nil {
		return uuid.Nil, fmt.Errorf("store: create task: count conversations: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return uuid.Nil, fmt.Errorf("store: create task: %w", err)
	}
	return id, nil
}

// conversationWriter numbers conversations and copies them into task_conversation a
// batch at a time.
type conversationWriter struct {
	ctx   context.Context
	tx    pgx.Tx
	task  uuid.UUID
	owner int64
	seq   int32
	rows  [][]any
}

var conversationColumns = []string{"task_id", "owner_user_id", "seq", "external_id", "messages", "metadata", "message_count"}

// add is the emit callback; it copies each full batch.
func (w *conversationWriter) add(c transcript.Conversation) error {
	messages, err := json.Marshal(c.Messages)
	if err != nil {
		return fmt.Errorf("store: conversation %q: %w", c.ID, err)
	}
	var metadata any
	if len(c.Metadata) > 0 {
		metadata = c.Metadata
	}
	w.seq++
	w.rows = append(w.rows, []any{w.task, w.owner, w.seq, c.ID, messages, metadata, int32(len(c.Messages))})
	if len(w.rows) >= copyBatch {
		return w.flush()
	}
	return nil
}

func (w *conversationWriter) flush() error {
	if len(w.rows) == 0 {
		return nil
	}
	_, err := w.tx.CopyFrom(w.ctx, pgx.Identifier{"task_conversation"}, conversationColumns, pgx.CopyFromRows(w.rows))
	w.rows = w.rows[:0]
	if err != nil {
		return fmt.Errorf("store: copy conversations: %w", err)
	}
	return nil
}
