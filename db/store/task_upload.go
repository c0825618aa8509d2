package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/db/transcript"
)

// NewTask is what an upload says about its task before its file is read.
type NewTask struct {
	Title          string
	Config         json.RawMessage // analysis_task.config; empty means {}
	SourceFilename string
	SourceBytes    int64
	// Unfinished caps the owner's tasks waiting or running, this one included:
	// Publish refuses with ErrTooManyUnfinished beyond it. 0 is no cap.
	Unfinished int
	// Token is the API token the upload came with, if any: Publish checks it is still
	// there (ErrTokenRevoked otherwise), since an upload can last longer than a token.
	Token *int64
	// Language is what a model writes the diagnosis in (locale.English or
	// locale.Chinese); empty is English.
	Language string
}

// ErrTokenRevoked is Publish's refusal of a task whose upload's token was revoked
// while it was read.
var ErrTokenRevoked = errors.New("store: the upload's token was revoked")

// Conversation is one conversation of an upload as task_conversation stores it.
type Conversation struct {
	ExternalID string
	// Messages is encoded to JSON on the COPY's goroutine, beside the parsing, so the
	// parser never waits for it.
	Messages     []transcript.Message
	MessageCount int
	Metadata     json.RawMessage // nil when the export had none
	Label        string          // the outcome the export recorded: "failed", "succeeded" or "" for none
	Sizes        transcript.Sizes
}

// ConversationOf is the row of a parsed conversation.
func ConversationOf(c transcript.Conversation) Conversation {
	return Conversation{ExternalID: c.ID, Messages: c.Messages, MessageCount: len(c.Messages),
		Metadata: c.Metadata, Label: string(c.Label), Sizes: c.Sizes()}
}

// UploadEnd is what an upload knows only once its file has been read to the end.
type UploadEnd struct {
	Title       string // replaces NewTask.Title when not empty
	Format      string // analysis_task.source_format
	SourceBytes int64  // replaces NewTask.SourceBytes when above zero
	LabelField  string // the field the conversations' labels were read from; "" for none
	// Agent names the agent the task belongs to (made when the owner has none of that
	// name); empty, the task's title does. SystemPrompt, when not empty, becomes the
	// agent's latest prompt, which later uploads are matched against.
	Agent        string
	SystemPrompt string
}

// labelFromUpload is task_conversation.label_source of a label the upload carried.
const labelFromUpload = "upload"

// copyAhead is how many conversations may wait between the upload's parser and the
// COPY: enough to keep both busy, few enough that memory stays small whatever the size
// of the upload.
const copyAhead = 64

var conversationColumns = []string{"task_id", "owner_user_id", "seq", "external_id", "messages", "metadata", "message_count", "label", "label_source", "turns", "user_turns", "tool_calls"}

var (
	// errRolledBack ends the COPY of an upload that is rolled back before Publish.
	errRolledBack = errors.New("store: the upload was rolled back")
	// errEnded refuses what comes after Publish or Rollback.
	errEnded = errors.New("store: the upload has ended already")
)

// TaskUpload is a task being created from an upload, inside one transaction: the
// conversations Add hands in stream into task_conversation through one COPY that runs
// alongside the caller's parsing, numbered from 1 in the order added. Nothing is
// visible to anyone, workers included, until Publish commits it; Rollback (deferred
// by every caller) discards it. A TaskUpload is used by one goroutine.
type TaskUpload struct {
	s     *Store
	tx    pgx.Tx
	id    uuid.UUID
	owner Owner
	title string
	bytes int64
	cap   int    // NewTask.Unfinished
	token *int64 // NewTask.Token

	src      *conversationSource
	warnings []dbsqlc.InsertTaskWarningParams
	copied   int32
	copyErr  error
	done     bool // published or rolled back
}

// BeginTask starts owner's new task and the COPY of its conversations. The caller adds
// the conversations, then publishes the task or rolls it back.
func (s *Store) BeginTask(ctx context.Context, owner Owner, task NewTask) (*TaskUpload, error) {
	tx, err := s.pool.BeginTx(ctx, newTaskTx)
	if err != nil {
		return nil, fmt.Errorf("store: begin task: %w", err)
	}
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
		Language:       cmp.Or(task.Language, locale.English),
	})
	if err != nil {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("store: begin task: %w", err)
	}
	u := &TaskUpload{s: s, tx: tx, id: id, owner: owner, title: task.Title, bytes: task.SourceBytes, cap: task.Unfinished, token: task.Token,
		src: &conversationSource{task: id, owner: owner.UserID(), rows: make(chan Conversation, copyAhead), done: make(chan struct{})}}
	go func() {
		defer close(u.src.done)
		n, err := tx.CopyFrom(ctx, pgx.Identifier{"task_conversation"}, conversationColumns, u.src)
		u.copied, u.src.copyErr = int32(n), err
	}()
	return u, nil
}

// ID is the new task's id.
func (u *TaskUpload) ID() uuid.UUID { return u.id }

// Add hands one conversation to the COPY. It fails once the COPY has failed, or the
// upload has ended.
func (u *TaskUpload) Add(c Conversation) error {
	if u.done {
		return errEnded
	}
	select {
	case u.src.rows <- c:
		return nil
	case <-u.src.done:
		return fmt.Errorf("store: copy conversations: %w", u.src.copyErr)
	}
}

// Warn records something the upload changed on the way in (a duplicate conversation
// id renamed, say), shown to the owner as a warning of stage upload, in order. scope
// says where in the file ("line 17"), zero for the whole file; en writes the English
// kept beside the messages (Warning).
func (u *TaskUpload) Warn(en *locale.Localizer, scope, message locale.Text) {
	u.warnings = append(u.warnings, Warning(en, u.id, u.owner.UserID(), taskstate.Upload, scope, message))
}

// endCopy closes the COPY, aborting it with abort when that is not nil, and waits for
// it; the connection is then free for the transaction's next statement.
func (u *TaskUpload) endCopy(abort error) error {
	if u.done {
		return nil
	}
	u.done = true
	u.src.abort = abort // read by Err once rows is closed
	close(u.src.rows)
	<-u.src.done
	if abort == nil && u.src.copyErr != nil {
		return fmt.Errorf("store: copy conversations: %w", u.src.copyErr)
	}
	return nil
}

// Publish records what the upload learned at its end and the warnings, commits the
// task with its conversations, and wakes the workers: the notification is delivered
// at commit, so the task is claimed as soon as it is visible, and never visible
// without its conversations. It is ErrTooManyUnfinished, and commits nothing, when the
// owner already has NewTask.Unfinished other tasks waiting or running.
func (u *TaskUpload) Publish(ctx context.Context, end UploadEnd) error {
	if u.done {
		return errEnded
	}
	defer func() { _ = u.tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit
	if err := u.endCopy(nil); err != nil {
		return err
	}
	// After the COPY, so the owner's lock is held only for the statements before the
	// commit.
	if err := u.s.checkLimits(ctx, u.tx, "publish task", u.owner, Limits{Unfinished: u.cap}, false, &u.id); err != nil {
		return err
	}
	q := u.s.q
	if u.token != nil {
		_, err := q.LockAPIToken(ctx, u.tx, dbsqlc.LockAPITokenParams{ID: *u.token, OwnerUserID: u.owner.UserID()})
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return ErrTokenRevoked
		case err != nil:
			return fmt.Errorf("store: publish task: token: %w", err)
		}
	}
	for _, w := range u.warnings {
		if err := q.InsertTaskWarning(ctx, u.tx, w); err != nil {
			return fmt.Errorf("store: publish task: warning: %w", err)
		}
	}
	title := cmp.Or(end.Title, u.title)
	if _, err := q.SetTaskConversationCount(ctx, u.tx, dbsqlc.SetTaskConversationCountParams{
		ID: u.id, OwnerUserID: u.owner.UserID(), ConversationCount: u.copied, SourceFormat: end.Format,
		Title: title, SourceBytes: cmp.Or(max(end.SourceBytes, 0), u.bytes), LabelField: end.LabelField,
	}); err != nil {
		return fmt.Errorf("store: publish task: count conversations: %w", err)
	}
	agentID, err := q.UpsertAgent(ctx, u.tx, dbsqlc.UpsertAgentParams{
		OwnerUserID: u.owner.UserID(), Name: cmp.Or(end.Agent, title), SystemPrompt: end.SystemPrompt,
	})
	if err != nil {
		return fmt.Errorf("store: publish task: agent: %w", err)
	}
	if _, err := q.SetTaskAgent(ctx, u.tx, dbsqlc.SetTaskAgentParams{AgentID: &agentID, ID: u.id, OwnerUserID: u.owner.UserID()}); err != nil {
		return fmt.Errorf("store: publish task: agent: %w", err)
	}
	if err := q.NotifyTaskPending(ctx, u.tx, u.id); err != nil {
		return fmt.Errorf("store: publish task: wake the workers: %w", err)
	}
	if err := u.tx.Commit(ctx); err != nil {
		return fmt.Errorf("store: publish task: %w", err)
	}
	return nil
}

// Rollback discards the task and everything added to it. It does nothing after
// Publish, so callers defer it right after BeginTask, which also covers a parser that
// panics.
func (u *TaskUpload) Rollback() {
	if u.done {
		return
	}
	_ = u.endCopy(errRolledBack)
	_ = u.tx.Rollback(context.Background())
}

// conversationSource is the COPY's pgx.CopyFromSource: it takes the conversations Add
// hands in through rows and numbers them. Values runs on the COPY's goroutine, so the
// messages are encoded there, beside the parsing.
type conversationSource struct {
	task    uuid.UUID
	owner   int64
	rows    chan Conversation
	done    chan struct{} // closed when the COPY has ended; copyErr is set then
	copyErr error
	abort   error // why the upload stopped; set before rows is closed
	// On the COPY's goroutine: ended once rows is closed and drained.
	ended bool
	cur   Conversation
	seq   int32
}

func (s *conversationSource) Next() bool {
	c, ok := <-s.rows
	if !ok {
		s.ended = true
		return false
	}
	s.cur = c
	s.seq++
	return true
}

func (s *conversationSource) Values() ([]any, error) {
	messages, err := json.Marshal(s.cur.Messages)
	if err != nil {
		return nil, fmt.Errorf("conversation %q: %w", s.cur.ExternalID, err)
	}
	var metadata, label, source any
	if len(s.cur.Metadata) > 0 {
		metadata = s.cur.Metadata
	}
	if s.cur.Label != "" {
		label, source = s.cur.Label, labelFromUpload
	}
	return []any{s.task, s.owner, s.seq, s.cur.ExternalID, messages, metadata, int32(s.cur.MessageCount), label, source,
		int32(s.cur.Sizes.Turns), int32(s.cur.Sizes.UserTurns), int32(s.cur.Sizes.ToolCalls)}, nil
}

// Err is the reason the upload stopped, which makes pgx abort the COPY. pgx asks after
// every chunk it sends; abort may be read only once rows is closed.
func (s *conversationSource) Err() error {
	if !s.ended {
		return nil
	}
	return s.abort
}
