package pipeline_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// TestPanicStackStaysInTheLog: a unit that panics fails the task with a sentence
// naming the panic; the stack goes to the server's log, never to the task's error,
// which the page and report.md show.
func TestPanicStackStaysInTheLog(t *testing.T) {
	t.Parallel()
	p := offlineProbe()
	p.onDiagnose = func(context.Context, transcript.Conversation) error { panic("bad conversation") }
	b := setup(t)
	id := b.uploadSample(t)
	var log syncBuffer
	w := workers.New(b.pool, pipeline.New(b.pool, p, workertest.Options(pipeline.Options{})), workertest.Complete(workers.Config{}),
		slog.New(slog.NewTextHandler(&log, nil)))
	w.Start(context.Background())
	t.Cleanup(func() { require.NoError(t, w.Stop(context.Background())) })

	task := b.waitTerminal(t, id, time.Minute)
	require.EqualValues(t, "failed", task.Status)
	require.Contains(t, task.Error, "internal error (bad conversation); the details are in the server's log")
	require.NotContains(t, task.Error, "goroutine")
	require.NotContains(t, task.Error, ".go:")
	waitFor(t, 10*time.Second, "the stack in the log", func() bool {
		return strings.Contains(log.String(), "the task stopped on a panic") && strings.Contains(log.String(), "panic_test.go")
	})
}

// syncBuffer is a log buffer safe for the worker's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
