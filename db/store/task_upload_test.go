package store_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/transcript"
)

// rows returns n small conversations, c1..cn, every third labelled failed and the one
// after it succeeded.
func rows(n int) []store.Conversation {
	out := make([]store.Conversation, n)
	for i := range out {
		out[i] = store.Conversation{ExternalID: fmt.Sprintf("c%d", i+1), MessageCount: 2,
			Messages: []transcript.Message{{Role: transcript.RoleUser, Content: "hello"}, {Role: transcript.RoleAssistant, Content: "hi"}}}
		switch i % 3 {
		case 0:
			out[i].Label = "failed"
		case 1:
			out[i].Label = "succeeded"
		}
	}
	return out
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

// upload adds convs to a new task of owner; the caller publishes or rolls it back.
func upload(t *testing.T, s *store.Store, owner store.Owner, convs []store.Conversation) *store.TaskUpload {
	t.Helper()
	u, err := s.BeginTask(context.Background(), owner, store.NewTask{Title: "provisional", SourceFilename: "f.jsonl"})
	require.NoError(t, err)
	t.Cleanup(u.Rollback)
	for _, c := range convs {
		require.NoError(t, u.Add(c))
	}
	return u
}

// TestPublishedTaskHoldsItsConversationsInOrderWithLabels: more conversations than the
// COPY holds ahead go in, numbered in order with their labels, and what the upload
// learns at its end (title, size, format, label field, warnings) is recorded with the
// task; a re-run copies the labels and the label field too.
func TestPublishedTaskHoldsItsConversationsInOrderWithLabels(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	owner := newOwner(t, pool)
	s := store.New(pool)
	u := upload(t, s, owner, rows(1000))
	en := localetest.English(t)
	u.Warn(en, locale.Lit("line 2"), locale.Lit("renamed"))
	u.Warn(en, locale.Text{}, locale.Msg("uploaded.more_changes", "Count", 3))
	require.NoError(t, u.Publish(ctx, store.UploadEnd{Title: "final", Format: "test", SourceBytes: 4242, LabelField: "success"}))
	u.Rollback() // a no-op once published

	var title, format, field string
	var bytes int64
	var count, maxSeq, last, failed, succeeded int
	require.NoError(t, pool.QueryRow(ctx, `
		SELECT t.title, t.source_format, t.source_bytes, t.conversation_count, t.label_field,
		       (SELECT max(seq) FROM task_conversation WHERE task_id = t.id),
		       (SELECT seq FROM task_conversation WHERE task_id = t.id AND external_id = 'c1000'),
		       (SELECT count(*) FROM task_conversation WHERE task_id = t.id AND label = 'failed'),
		       (SELECT count(*) FROM task_conversation WHERE task_id = t.id AND label = 'succeeded')
		FROM analysis_task t WHERE t.id = $1`, u.ID()).Scan(&title, &format, &bytes, &count, &field, &maxSeq, &last, &failed, &succeeded))
	require.Equal(t, "final", title)
	require.Equal(t, "test", format)
	require.Equal(t, int64(4242), bytes)
	require.Equal(t, "success", field)
	require.Equal(t, 1000, count)
	require.Equal(t, 1000, maxSeq)
	require.Equal(t, 1000, last, "seq follows the order of Add")
	require.Equal(t, 334, failed)
	require.Equal(t, 333, succeeded)
	_, convs, warnings := counts(t, pool, owner)
	require.Equal(t, 1000, convs)
	require.Equal(t, 2, warnings)
	var scope, message, key string
	var scopeText []byte
	require.NoError(t, pool.QueryRow(ctx, `SELECT scope, scope_text, message, message_text ->> 'id' FROM task_warning
		WHERE task_id = $1 ORDER BY id DESC LIMIT 1`, u.ID()).Scan(&scope, &scopeText, &message, &key))
	require.Empty(t, scope)
	require.Nil(t, scopeText, "a warning about the whole file has no scope")
	require.Equal(t, "and 3 more changes like these, not listed", message, "the English beside the key")
	require.Equal(t, "uploaded.more_changes", key)

	rerun, err := s.RerunTask(ctx, u.ID(), owner, store.Limits{Reruns: 1})
	require.NoError(t, err)
	require.NoError(t, pool.QueryRow(ctx, `
		SELECT t.label_field,
		       (SELECT count(*) FROM task_conversation WHERE task_id = t.id AND label = 'failed'),
		       (SELECT count(*) FROM task_conversation WHERE task_id = t.id AND label = 'succeeded')
		FROM analysis_task t WHERE t.id = $1`, rerun.ID).Scan(&field, &failed, &succeeded))
	require.Equal(t, "success", field)
	require.Equal(t, 334, failed, "a re-run keeps the labels")
	require.Equal(t, 333, succeeded)
}

// TestRolledBackUploadStoresNothing: a rollback after conversations were already
// streamed, or a producer that panics with the rollback deferred, leaves no task,
// conversation or warning, and the connection is fit for the next task.
func TestRolledBackUploadStoresNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	owner := newOwner(t, pool)
	s := store.New(pool)
	u := upload(t, s, owner, rows(699))
	u.Warn(localetest.English(t), locale.Text{}, locale.Lit("w"))
	u.Rollback()
	require.Error(t, u.Publish(ctx, store.UploadEnd{}), "a rolled-back upload cannot be published")
	require.Error(t, u.Add(rows(1)[0]), "nor added to")

	require.PanicsWithValue(t, "parser bug", func() {
		u, err := s.BeginTask(ctx, owner, store.NewTask{Title: "t"})
		require.NoError(t, err)
		defer u.Rollback()
		for _, c := range rows(300) {
			require.NoError(t, u.Add(c))
		}
		panic("parser bug")
	})
	tasks, convs, warnings := counts(t, pool, owner)
	require.Zero(t, tasks+convs+warnings)

	u = upload(t, s, owner, rows(3))
	require.NoError(t, u.Publish(ctx, store.UploadEnd{Format: "test"}))
	_, convs, _ = counts(t, pool, owner)
	require.Equal(t, 3, convs)
}

// TestAFailedCopyIsReported: a row the table refuses ends the COPY, and Add or Publish
// says so; nothing is stored.
func TestAFailedCopyIsReported(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	owner := newOwner(t, pool)
	u, err := store.New(pool).BeginTask(ctx, owner, store.NewTask{Title: "t"})
	require.NoError(t, err)
	defer u.Rollback()
	bad := rows(1)[0]
	bad.Label = "maybe" // the column's CHECK refuses it
	var addErr error
	for range 10_000 {
		if addErr = u.Add(bad); addErr != nil {
			break
		}
	}
	if addErr == nil {
		addErr = u.Publish(ctx, store.UploadEnd{})
	}
	require.Error(t, addErr)
	var pgErr interface{ SQLState() string }
	require.True(t, errors.As(addErr, &pgErr), "%v", addErr)
	require.Equal(t, "23514", pgErr.SQLState(), "check_violation")
	tasks, convs, _ := counts(t, pool, owner)
	require.Zero(t, tasks+convs)
}

// TestPublishRefusesATaskWhoseTokenWasRevoked revokes the token an upload came with
// while the upload is under way: Publish refuses it and nothing is stored; with the
// token still there, the same upload is published.
func TestPublishRefusesATaskWhoseTokenWasRevoked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := dbtest.Isolated(t) // its own pool: the upload holds a connection while others are asked for
	s := store.New(pool)
	owner := newOwner(t, pool)
	for _, revoke := range []bool{true, false} {
		hash := sha256.Sum256([]byte(fmt.Sprint(revoke)))
		tok, err := s.CreateAPIToken(ctx, owner, store.NewAPIToken{Name: fmt.Sprint(revoke), TokenHash: hash[:], Hint: "ck_x"})
		require.NoError(t, err)
		u, err := s.BeginTask(ctx, owner, store.NewTask{Title: "by script", SourceFilename: "f.jsonl", Token: &tok.ID})
		require.NoError(t, err)
		for _, c := range rows(3) {
			require.NoError(t, u.Add(c))
		}
		if revoke {
			_, err = s.RevokeAPIToken(ctx, tok.ID, owner)
			require.NoError(t, err)
			require.ErrorIs(t, u.Publish(ctx, store.UploadEnd{Format: "openai-jsonl"}), store.ErrTokenRevoked)
			tasks, convs, _ := counts(t, pool, owner)
			require.Zero(t, tasks+convs, "nothing stored")
			continue
		}
		require.NoError(t, u.Publish(ctx, store.UploadEnd{Format: "openai-jsonl"}))
		tasks, convs, _ := counts(t, pool, owner)
		require.Equal(t, []int{1, 3}, []int{tasks, convs})
	}
}
