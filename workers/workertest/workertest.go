// Package workertest is what the tests of the worker, the pipeline and their callers
// share: a signed-up owner, tasks stored from transcripts as an upload stores them,
// complete worker and pipeline options, a worker stopped at the test's end, and
// polling with a deadline instead of sleeping.
package workertest

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/pipeline"
)

// Owner signs up a user named name (again and again the same one) and returns them as
// the owner of tasks.
func Owner(tb testing.TB, pool *pgxpool.Pool, name string) store.Owner {
	tb.Helper()
	u, err := dbsqlc.New().UpsertUser(context.Background(), pool, dbsqlc.UpsertUserParams{Provider: "test", ProviderUserID: name})
	if err != nil {
		tb.Fatalf("workertest: user %s: %v", name, err)
	}
	return store.NewOwner(u.ID)
}

// Conversations returns n small conversations, c1..cn, of a greeting and its answer.
func Conversations(n int) []transcript.Conversation {
	convs := make([]transcript.Conversation, n)
	for i := range convs {
		convs[i] = transcript.Conversation{ID: fmt.Sprintf("c%d", i+1), Messages: []transcript.Message{
			{Role: transcript.RoleUser, Content: "hello"}, {Role: transcript.RoleAssistant, Content: "hi"},
		}}
	}
	return convs
}

// Row is c as an upload stores it.
func Row(c transcript.Conversation) store.Conversation {
	return store.ConversationOf(c)
}

// CreateTask stores owner's pending task with convs, as an upload does, and wakes the
// workers.
func CreateTask(tb testing.TB, s *store.Store, owner store.Owner, task store.NewTask, convs []transcript.Conversation) uuid.UUID {
	tb.Helper()
	ctx := context.Background()
	u, err := s.BeginTask(ctx, owner, task)
	if err != nil {
		tb.Fatalf("workertest: begin task: %v", err)
	}
	defer u.Rollback()
	for _, c := range convs {
		if err := u.Add(Row(c)); err != nil {
			tb.Fatalf("workertest: add %s: %v", c.ID, err)
		}
	}
	if err := u.Publish(ctx, store.UploadEnd{Format: "test"}); err != nil {
		tb.Fatalf("workertest: publish task: %v", err)
	}
	return u.ID()
}

// Complete fills the fields of cfg a test left zero, so a test names only what it is
// about. These are values tests rely on, not the product's defaults: those are
// app/config's, and the worker itself has none.
func Complete(cfg workers.Config) workers.Config {
	cfg.ID = cmp.Or(cfg.ID, "test-worker")
	cfg.Poll = cmp.Or(cfg.Poll, 2*time.Second)
	cfg.Stale = cmp.Or(cfg.Stale, 2*time.Minute)
	cfg.Heartbeat = cmp.Or(cfg.Heartbeat, cfg.Stale/4)
	cfg.MaxAttempts = cmp.Or(cfg.MaxAttempts, 3)
	cfg.ShutdownGrace = cmp.Or(cfg.ShutdownGrace, 30*time.Second)
	if cfg.Metrics == nil {
		cfg.Metrics = workers.NewMetrics()
	}
	return cfg
}

// StartWorker starts a worker running handler on pool's tasks with cfg completed,
// stopped when the test ends.
func StartWorker(tb testing.TB, pool *pgxpool.Pool, handler workers.Handler, cfg workers.Config, logger *slog.Logger) *workers.Worker {
	tb.Helper()
	w := workers.New(pool, handler, Complete(cfg), logger)
	if err := w.Start(context.Background()); err != nil {
		tb.Fatalf("workertest: start worker: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := w.Stop(ctx); err != nil {
			tb.Errorf("workertest: stop worker: %v", err)
		}
	})
	return w
}

// WaitFor polls cond until it holds, failing the test after timeout.
func WaitFor(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Options fills the pipeline options a test left zero with values tests rely on: the
// product's come from app/config, and the pipeline itself has none.
func Options(o pipeline.Options) pipeline.Options {
	o.MinConversations = cmp.Or(o.MinConversations, 5)
	o.DiagnosisConcurrency = cmp.Or(o.DiagnosisConcurrency, 2)
	o.ActionConcurrency = cmp.Or(o.ActionConcurrency, 2)
	o.OutageMax = cmp.Or(o.OutageMax, 15*time.Minute)
	return o
}
