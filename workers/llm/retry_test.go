package llm_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/llm"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
)

// firstThen answers the first request of each unit with first, the rest validly.
func firstThen(first llmtest.Reply) llmtest.Script {
	return func(req llmtest.Request, n int) llmtest.Reply {
		if n == 1 {
			return first
		}
		return llmtest.Valid(req)
	}
}

func TestRetryAfterIsWaitedOut(t *testing.T) {
	t.Parallel()
	b := setup(t, firstThen(llmtest.RateLimited("1")), llm.Config{})

	start := time.Now()
	res, err := b.a.Diagnose(context.Background(), readSample(t)[0])
	elapsed := time.Since(start)

	require.NoError(t, err)
	require.Equal(t, analyzer.PassFirst, res.Pass)
	require.GreaterOrEqual(t, elapsed, time.Second, "Retry-After: 1 is honoured over the 10ms backoff")
	st := b.srv.Stats()
	require.Equal(t, 2, st.Requests)
	require.Equal(t, 1, st.ByStatus[http.StatusTooManyRequests])
	requireCounted(t, b.srv, res.Usage)
}

func TestServerErrorIsRetried(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var calls []llm.Call
	b := setup(t, firstThen(llmtest.ServerError()), llm.Config{Observer: func(c llm.Call) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, c)
	}})

	res, err := b.a.Diagnose(context.Background(), readSample(t)[0])

	require.NoError(t, err)
	require.Equal(t, analyzer.PassFirst, res.Pass, "a retry is not a repair")
	require.Equal(t, 1, res.Usage.Calls)
	require.Equal(t, 2, b.srv.Stats().Requests)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, calls, 2)
	require.Error(t, calls[0].Err)
	require.Equal(t, 1, calls[0].Try)
	require.Zero(t, calls[0].Usage)
	require.NoError(t, calls[1].Err)
	require.Equal(t, 2, calls[1].Try)
	require.Equal(t, llm.StageDiagnose, calls[1].Stage)
	require.Equal(t, res.Usage, calls[1].Usage)
}

func TestRetriesAndRepairAreSeparate(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var calls []llm.Call
	b := setup(t, func(req llmtest.Request, n int) llmtest.Reply {
		switch n {
		case 1:
			return llmtest.ServerError()
		case 2:
			return llmtest.InvalidJSON()
		}
		return llmtest.Valid(req)
	}, llm.Config{Observer: func(c llm.Call) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, c)
	}})

	res, err := b.a.Diagnose(context.Background(), readSample(t)[0])

	require.NoError(t, err)
	require.Equal(t, analyzer.PassRepaired, res.Pass)
	require.Equal(t, 2, res.Usage.Calls, "the failed try reported no usage")
	require.Equal(t, 3, b.srv.Stats().Requests)
	requireCounted(t, b.srv, res.Usage)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, calls, 3)
	for i, want := range []struct {
		try    int
		repair bool
		failed bool
	}{{1, false, true}, {2, false, false}, {1, true, false}} {
		require.Equal(t, want.try, calls[i].Try, i)
		require.Equal(t, want.repair, calls[i].Repair, i)
		require.Equal(t, want.failed, calls[i].Err != nil, i)
	}
}

func TestClientErrorIsNotRetried(t *testing.T) {
	t.Parallel()
	b := setup(t, func(llmtest.Request, int) llmtest.Reply {
		return llmtest.Reply{Status: http.StatusBadRequest, Content: "bad schema"}
	}, llm.Config{})

	_, err := b.a.Diagnose(context.Background(), readSample(t)[0])

	var apiErr *openai.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, http.StatusBadRequest, apiErr.HTTPStatusCode)
	require.NotErrorIs(t, err, llm.ErrUnavailable)
	require.Equal(t, 1, b.srv.Stats().Requests)
}

func TestHungServerTimesOutThenGivesUp(t *testing.T) {
	t.Parallel()
	b := setup(t, func(llmtest.Request, int) llmtest.Reply { return llmtest.Hang() },
		llm.Config{Timeout: 200 * time.Millisecond, MaxTries: 3})

	start := time.Now()
	res, err := b.a.Diagnose(context.Background(), readSample(t)[0])

	require.ErrorIs(t, err, llm.ErrUnavailable)
	require.NotErrorIs(t, err, context.DeadlineExceeded, "a per-call timeout is not the caller's deadline")
	require.NotErrorIs(t, err, analyzer.ErrInvalidOutput)
	require.Contains(t, err.Error(), "after 3 tries")
	require.GreaterOrEqual(t, time.Since(start), 600*time.Millisecond)
	require.Zero(t, res.Usage)
	require.Equal(t, 3, b.srv.Stats().Requests)
}

func TestCancelWhileCallsHang(t *testing.T) {
	t.Parallel()
	b := setup(t, func(llmtest.Request, int) llmtest.Reply { return llmtest.Hang() }, llm.Config{Timeout: time.Minute})
	convs := readSample(t)[:10]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	done := make(chan []outcome)
	go func() { done <- diagnoseAll(ctx, b.a, convs, 4) }()
	require.True(t, b.srv.WaitRequests(ctx.Done(), 4))
	cancel()

	select {
	case outs := <-done:
		for _, o := range outs {
			require.ErrorIs(t, o.err, context.Canceled)
		}
	case <-time.After(time.Second):
		t.Fatal("Diagnose did not return within 1s of the cancellation")
	}
	require.Equal(t, 4, b.srv.Stats().Requests, "no call starts after the cancellation")
}

func TestCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	b := setup(t, func(llmtest.Request, int) llmtest.Reply { return llmtest.RateLimited("60") }, llm.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	conv := readSample(t)[0]

	errc := make(chan error, 1)
	go func() {
		_, err := b.a.Diagnose(ctx, conv)
		errc <- err
	}()
	require.True(t, b.srv.WaitRequests(ctx.Done(), 1))
	cancel()

	select {
	case err := <-errc:
		require.True(t, errors.Is(err, context.Canceled), err)
	case <-time.After(time.Second):
		t.Fatal("Diagnose kept sleeping after the cancellation")
	}
}
