package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/workers/transcript"
)

// conversations emits n small conversations, c1..cn, then returns err.
func conversations(n int, err error) func(emit func(transcript.Conversation) error) (string, error) {
	return func(emit func(transcript.Conversation) error) (string, error) {
		for i := range n {
			if e := emit(transcript.Conversation{ID: fmt.Sprintf("c%d", i+1), Messages: []transcript.Message{
				{Role: transcript.RoleUser, Content: "hello"}, {Role: transcript.RoleAssistant, Content: "hi"},
			}}); e != nil {
				return "", e
			}
		}
		return "test", err
	}
}

func newOwner(t *testing.T, pool *pgxpool.Pool) store.Owner {
	t.Helper()
	u, err := dbsqlc.New().UpsertUser(context.Background(), pool, dbsqlc.UpsertUserParams{Provider: "test", ProviderUserID: t.Name()})
	require.NoError(t, err)
	return store.NewOwner(u.ID)
}

func counts(t *testing.T, pool *pgxpool.Pool, owner store.Owner) (tasks, convs, warnings int) {
	t.Helper()
	require.NoError(t, pool.QueryRow(context.Background(), `
		SELECT (SELECT count(*) FROM analysis_task WHERE owner_user_id = $1),
		       (SELECT count(*) FROM task_conversation WHERE owner_user_id = $1),
		       (SELECT count(*) FROM task_warning WHERE owner_user_id = $1)`, owner.UserID()).Scan(&tasks, &convs, &warnings))
	return
}

// TestCreateTaskStreamsConversationsAndRecordsTheEnd: more conversations than the
// COPY holds ahead go in, numbered in order, and what the upload learns at its end
// (title, size, warnings) is recorded with the task.
func TestCreateTaskStreamsConversationsAndRecordsTheEnd(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	owner := newOwner(t, pool)
	id, err := store.New(pool).CreateTask(context.Background(), store.NewTask{
		Title: "provisional", SourceFilename: "f.jsonl", Conversations: conversations(1000, nil),
		Finish: func() store.UploadEnd {
			return store.UploadEnd{Title: "final", SourceBytes: 4242, Warnings: []store.UploadWarning{
				{Scope: "line 2", Message: "renamed"}, {Message: "and 3 more"}}}
		},
	}, owner)
	require.NoError(t, err)
	var title, format string
	var bytes int64
	var count, maxSeq, last int
	require.NoError(t, pool.QueryRow(context.Background(), `
		SELECT t.title, t.source_format, t.source_bytes, t.conversation_count,
		       (SELECT max(seq) FROM task_conversation WHERE task_id = t.id),
		       (SELECT seq FROM task_conversation WHERE task_id = t.id AND external_id = 'c1000')
		FROM analysis_task t WHERE t.id = $1`, id).Scan(&title, &format, &bytes, &count, &maxSeq, &last))
	require.Equal(t, "final", title)
	require.Equal(t, "test", format)
	require.Equal(t, int64(4242), bytes)
	require.Equal(t, 1000, count)
	require.Equal(t, 1000, maxSeq)
	require.Equal(t, 1000, last, "seq follows the order of emit")
	_, convs, warnings := counts(t, pool, owner)
	require.Equal(t, 1000, convs)
	require.Equal(t, 2, warnings)
}

// TestCreateTaskStoresNothingWhenTheUploadFails: an error after conversations were
// already streamed, or a panic, leaves no task, conversation or warning, and the
// connection is fit for the next task.
func TestCreateTaskStoresNothingWhenTheUploadFails(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	owner := newOwner(t, pool)
	s := store.New(pool)
	bad := errors.New("line 700: bad role")
	_, err := s.CreateTask(context.Background(), store.NewTask{Title: "t", Conversations: conversations(699, bad),
		Finish: func() store.UploadEnd { return store.UploadEnd{Warnings: []store.UploadWarning{{Message: "w"}}} }}, owner)
	require.ErrorIs(t, err, bad)

	require.PanicsWithValue(t, "parser bug", func() {
		_, _ = s.CreateTask(context.Background(), store.NewTask{Title: "t",
			Conversations: func(emit func(transcript.Conversation) error) (string, error) {
				_, _ = conversations(300, nil)(emit)
				panic("parser bug")
			}}, owner)
	})
	tasks, convs, warnings := counts(t, pool, owner)
	require.Zero(t, tasks+convs+warnings)

	_, err = s.CreateTask(context.Background(), store.NewTask{Title: "t", Conversations: conversations(3, nil)}, owner)
	require.NoError(t, err)
	_, convs, _ = counts(t, pool, owner)
	require.Equal(t, 3, convs)
}
