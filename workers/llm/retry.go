package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

// ErrUnavailable is analyzer.ErrUnavailable: the provider is down or throttling. A
// call ends with it when every one of Config.MaxTries tries ended in a rate limit, a
// server error, a timeout or a broken or refused connection, or at once when a rate
// limit asks for more than longRetryAfter. The pipeline then pauses the task's model
// work behind its circuit breaker instead of isolating the unit.
var ErrUnavailable = analyzer.ErrUnavailable

// longRetryAfter is the longest Retry-After a call waits out itself; a rate limit that
// asks for more is an outage, waited out by the pipeline's circuit breaker, which holds
// every unit of the task and probes, rather than by each call on its own.
const longRetryAfter = 30 * time.Second

// maxRetryAfter caps the wait a Retry-After header can impose.
const maxRetryAfter = 2 * time.Minute

// errTimeout replaces the context error of a call that ran out of Config.Timeout, so
// that a per-call timeout is never mistaken for the caller's own deadline.
var errTimeout = errors.New("call timed out")

// complete makes one chat completion, retrying on 429, 5xx, timeouts and broken
// connections with exponential backoff and full jitter (or the server's Retry-After),
// at most MaxTries times. Any other error status is returned at once. When ctx ends,
// it stops at once, in a call or in a backoff, and returns an error wrapping ctx.Err().
func (a *Analyzer) complete(ctx context.Context, stage string, repair bool, s *schema, msgs []openai.ChatCompletionMessage) (string, analyzer.Usage, error) {
	req := a.request(s, msgs)
	for try := 1; ; try++ {
		resp, call := a.observedCall(ctx, req, Call{Stage: stage, Repair: repair, Try: try})
		err := call.Err
		switch {
		case err == nil:
			return answerOf(resp), call.Usage, nil
		case ctx.Err() != nil:
			return "", analyzer.Usage{}, fmt.Errorf("llm: %s: %w", stage, ctx.Err())
		case !retryable(err):
			return "", analyzer.Usage{}, fmt.Errorf("llm: %s: %w", stage, err)
		case try >= a.cfg.MaxTries:
			return "", analyzer.Usage{}, fmt.Errorf("llm: %s: %w after %d tries: %v", stage, ErrUnavailable, try, err)
		}
		wait := retryAfter(resp.Header(), time.Now())
		if wait > longRetryAfter {
			return "", analyzer.Usage{}, fmt.Errorf("llm: %s: %w: the provider asks to wait %s: %v", stage, ErrUnavailable, wait, err)
		}
		if wait == 0 {
			wait = a.backoff(try)
		}
		a.cfg.Logger.Warn("llm call failed, retrying", "stage", stage, "try", try, "wait_ms", wait.Milliseconds(), "error", err)
		if err := sleep(ctx, wait); err != nil {
			return "", analyzer.Usage{}, fmt.Errorf("llm: %s: %w", stage, err)
		}
	}
}

// observedCall makes one call and tells the Observer of it: call gives its stage, repair
// and try, and comes back with its duration, error and usage.
func (a *Analyzer) observedCall(ctx context.Context, req openai.ChatCompletionRequest, call Call) (openai.ChatCompletionResponse, Call) {
	start := time.Now()
	resp, err := a.call(ctx, req)
	call.Duration, call.Err = time.Since(start), err
	if err == nil {
		call.Usage = usageOf(resp)
	}
	if a.cfg.Observer != nil {
		a.cfg.Observer(call)
	}
	return resp, call
}

// call makes one HTTP call under the per-call timeout.
func (a *Analyzer) call(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	callCtx, cancel := context.WithTimeout(ctx, a.cfg.Timeout)
	defer cancel()
	resp, err := a.client.CreateChatCompletion(callCtx, req)
	if err != nil && ctx.Err() == nil && errors.Is(callCtx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("%w after %s", errTimeout, a.cfg.Timeout)
	}
	return resp, err
}

// answerOf is the first choice's content; an empty answer fails validation and is
// repaired like any other invalid one.
func answerOf(resp openai.ChatCompletionResponse) string {
	if len(resp.Choices) == 0 {
		return ""
	}
	return resp.Choices[0].Message.Content
}

// retryable reports whether a failed call may succeed when tried again: a 429 or
// 5xx status, a timeout, or a connection that failed or broke off.
func retryable(err error) bool {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		return retryableStatus(apiErr.HTTPStatusCode)
	case errors.As(err, &reqErr):
		return retryableStatus(reqErr.HTTPStatusCode)
	}
	var netErr net.Error
	return errors.Is(err, errTimeout) || errors.As(err, &netErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code >= http.StatusInternalServerError
}

// retryAfter is the wait a Retry-After header asks for, in seconds or as an HTTP
// date, capped at maxRetryAfter; 0 when there is none or it cannot be read.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.Atoi(v); err == nil {
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}

// backoff is the wait before try+1: a uniformly random duration between 0 and
// min(BackoffMax, BackoffBase·2^(try-1)) ("full jitter"), which spreads the retries of
// concurrent calls that failed together.
func (a *Analyzer) backoff(try int) time.Duration {
	ceiling := a.cfg.BackoffBase
	for i := 1; i < try && ceiling < a.cfg.BackoffMax; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, a.cfg.BackoffMax)
	if ceiling <= 0 {
		return 0
	}
	return rand.N(ceiling + 1)
}

// sleep waits for d or until ctx ends, whichever comes first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
