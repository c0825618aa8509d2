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
	// The server counts a request when its handler starts, which on a busy machine can
	// lag the client's giving up on it.
	require.Eventually(t, func() bool { return b.srv.Stats().Requests == 3 }, 5*time.Second, 10*time.Millisecond)
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
	// 20 s is waited out inside the call (a longer Retry-After ends it at once as an
	// outage, see TestLongRetryAfterIsAnOutage), so the cancel meets the backoff.
	b := setup(t, func(llmtest.Request, int) llmtest.Reply { return llmtest.RateLimited("20") }, llm.Config{})
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

// TestLongRetryAfterIsAnOutage: a rate limit that asks for minutes is not waited out
// inside the call: the call ends at once as unavailable, for the pipeline's breaker.
func TestLongRetryAfterIsAnOutage(t *testing.T) {
	t.Parallel()
	b := setup(t, func(llmtest.Request, int) llmtest.Reply { return llmtest.RateLimited("120") }, llm.Config{})

	start := time.Now()
	_, err := b.a.Diagnose(context.Background(), readSample(t)[0])

	require.ErrorIs(t, err, analyzer.ErrUnavailable)
	require.ErrorContains(t, err, "the provider asks to wait 2m0s")
	require.Less(t, time.Since(start), 10*time.Second)
	require.Equal(t, 1, b.srv.Stats().Requests)
}

// TestOutagesAreUnavailableAndAnswersAreNot: what the provider's state causes (5xx
// after every retry, a refused connection) is analyzer.ErrUnavailable; an answer that
// stays invalid is not.
func TestOutagesAreUnavailableAndAnswersAreNot(t *testing.T) {
	t.Parallel()
	down := setup(t, func(llmtest.Request, int) llmtest.Reply { return llmtest.ServiceUnavailable() }, llm.Config{MaxTries: 2})
	_, err := down.a.Diagnose(context.Background(), readSample(t)[0])
	require.ErrorIs(t, err, analyzer.ErrUnavailable)
	require.NotErrorIs(t, err, analyzer.ErrInvalidOutput)

	gone := setup(t, nil, llm.Config{MaxTries: 2})
	gone.srv.Close()
	_, err = gone.a.Diagnose(context.Background(), readSample(t)[0])
	require.ErrorIs(t, err, analyzer.ErrUnavailable, "connection refused")

	invalid := setup(t, func(llmtest.Request, int) llmtest.Reply { return llmtest.InvalidJSON() }, llm.Config{})
	_, err = invalid.a.Diagnose(context.Background(), readSample(t)[0])
	require.ErrorIs(t, err, analyzer.ErrInvalidOutput)
	require.NotErrorIs(t, err, analyzer.ErrUnavailable)
}

// TestProbe: one call, no retries; unavailable while the provider is down, nil with
// its cost once it answers, and nil when it answers with an error of the request.
func TestProbe(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	reply := llmtest.ServiceUnavailable()
	set := func(r llmtest.Reply) {
		mu.Lock()
		defer mu.Unlock()
		reply = r
	}
	b := setup(t, func(req llmtest.Request, _ int) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if reply.Status == 0 {
			return llmtest.Valid(req)
		}
		return reply
	}, llm.Config{})

	_, err := b.a.Probe(context.Background())
	require.ErrorIs(t, err, analyzer.ErrUnavailable)
	require.Equal(t, 1, b.srv.Stats().Requests, "a probe is not retried")

	set(llmtest.RateLimited("1"))
	_, err = b.a.Probe(context.Background())
	require.ErrorIs(t, err, analyzer.ErrUnavailable)

	set(llmtest.Reply{Status: http.StatusUnauthorized, Content: "bad key"})
	usage, err := b.a.Probe(context.Background())
	require.NoError(t, err, "the provider answers: the units meet the error themselves")
	require.Zero(t, usage)

	set(llmtest.Reply{})
	usage, err = b.a.Probe(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, usage.Calls)
	requireCounted(t, b.srv, usage)
	req := b.srv.Requests()[3]
	require.Empty(t, req.ResponseFormat.Type, "a probe asks for no schema")
	require.Len(t, req.Messages, 1)
}
