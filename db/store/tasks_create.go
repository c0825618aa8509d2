package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

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

// CreateTask creates owner's task and its conversations, and wakes the workers, in one
// transaction: a task is never visible without its conversations, and it is claimed
// as soon as it commits. The conversations are streamed in with one COPY while they
// are produced, seq numbered from 1 in file order.
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
	copied, format, err := copyConversations(ctx, tx, id, owner.UserID(), task.Conversations)
	if err != nil {
		return uuid.Nil, fmt.Errorf("store: create task: %w", err)
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
		ID: id, OwnerUserID: owner.UserID(), ConversationCount: copied, SourceFormat: format,
		Title: cmp.Or(end.Title, task.Title), SourceBytes: cmp.Or(max(end.SourceBytes, 0), task.SourceBytes),
	}); err != nil {
		return uuid.Nil, fmt.Errorf("store: create task: count conversations: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return uuid.Nil, fmt.Errorf("store: create task: %w", err)
	}
	return id, nil
}
