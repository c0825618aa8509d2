package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/workers/transcript"
)

// copyAhead is how many conversations may wait between the producer (the upload's
// parser) and the COPY: enough to keep both busy, few enough that memory stays small
// whatever the size of the upload.
const copyAhead = 64

var conversationColumns = []string{"task_id", "owner_user_id", "seq", "external_id", "messages", "metadata", "message_count"}

// errProducerPanicked ends the COPY when the producer panics, so the connection is free
// again before the transaction rolls back.
var errProducerPanicked = errors.New("store: the conversations' producer stopped with a panic")

// copyConversations runs produce and streams what it emits into task_conversation with
// one COPY that runs alongside it: the parser goes on reading while PostgreSQL stores
// the conversations before. An error from produce aborts the COPY. It returns how many
// rows were copied and the format produce reported.
func copyConversations(ctx context.Context, tx pgx.Tx, task uuid.UUID, owner int64,
	produce func(emit func(transcript.Conversation) error) (string, error)) (copied int32, format string, err error) {
	src := &conversationSource{task: task, owner: owner, rows: make(chan transcript.Conversation, copyAhead), done: make(chan struct{})}
	var n int64
	go func() {
		defer close(src.done)
		n, src.copyErr = tx.CopyFrom(ctx, pgx.Identifier{"task_conversation"}, conversationColumns, src)
	}()
	returned := false
	defer func() {
		abort := err
		if !returned {
			abort = errProducerPanicked
		}
		src.abort = abort // read by Err after rows is closed
		close(src.rows)
		<-src.done
		if returned && err == nil && src.copyErr != nil {
			err = fmt.Errorf("copy conversations: %w", src.copyErr)
		}
		copied = int32(n)
	}()
	format, err = produce(src.emit)
	returned = true
	return 0, format, err
}

// conversationSource is the COPY's pgx.CopyFromSource: it takes conversations from the
// producer through rows and numbers them. Values runs on the COPY's goroutine, so the
// messages are encoded there, beside the parsing.
type conversationSource struct {
	task    uuid.UUID
	owner   int64
	rows    chan transcript.Conversation
	done    chan struct{} // closed when the COPY has ended; copyErr is set then
	copyErr error
	abort   error // why the producer stopped; set before rows is closed
	// On the COPY's goroutine: ended once rows is closed and drained.
	ended bool
	cur   transcript.Conversation
	seq   int32
}

// emit hands one conversation to the COPY; it fails once the COPY has failed.
func (s *conversationSource) emit(c transcript.Conversation) error {
	select {
	case s.rows <- c:
		return nil
	case <-s.done:
		return fmt.Errorf("copy conversations: %w", s.copyErr)
	}
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
		return nil, fmt.Errorf("conversation %q: %w", s.cur.ID, err)
	}
	var metadata any
	if len(s.cur.Metadata) > 0 {
		metadata = s.cur.Metadata
	}
	return []any{s.task, s.owner, s.seq, s.cur.ID, messages, metadata, int32(len(s.cur.Messages))}, nil
}

// Err is the producer's error, which makes pgx abort the COPY. pgx asks after every
// chunk it sends; abort may be read only once rows is closed.
func (s *conversationSource) Err() error {
	if !s.ended {
		return nil
	}
	return s.abort
}
