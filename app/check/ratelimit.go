package check

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The API answers a token beyond its rate limit (API_RATE_PER_MINUTE, API_RATE_BURST)
// with 429 and Retry-After, the seconds until it lets one more request through.
const (
	// defaultRetryAfter is the wait after a 429 without a Retry-After the check can read.
	defaultRetryAfter = 2 * time.Second
	// maxRetryAfter caps one wait: the API's own limits never ask for more than a
	// minute, so a longer Retry-After is waited in steps of this and asked again.
	maxRetryAfter = time.Minute
)

// retryAfter is the wait a Retry-After header asks for, in seconds or as an HTTP date,
// at least a second (so that a server answering 0 is not asked again at once) and at
// most maxRetryAfter, and whether the header said one; defaultRetryAfter when it did
// not.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	d := time.Duration(-1)
	if secs, err := strconv.Atoi(v); err == nil {
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	if d < 0 {
		return defaultRetryAfter, false
	}
	return min(max(d, time.Second), maxRetryAfter), true
}

// rateLimited waits out a 429 to method path, saying so on c.out, unless the wait
// would end past the check's deadline or ctx's: then the check stops with the server's
// sentence, as a refusal it could not wait for.
func (c *client) rateLimited(ctx context.Context, method, path string, resp *http.Response, wait time.Duration) error {
	end := c.deadline
	if d, ok := ctx.Deadline(); ok && (end.IsZero() || d.Before(end)) {
		end = d
	}
	if !end.IsZero() && time.Now().Add(wait).After(end) {
		return &ExitError{Code: Refused, Err: fmt.Errorf("%s %s: %s: %w", method, printable(path), resp.Status,
			fmt.Errorf("%s (waiting %s more would pass --timeout)", serverSays(resp), wait))}
	}
	fmt.Fprintf(c.out, "  rate-limited (429 on %s %s): waiting %s, then asking again\n", method, printable(path), wait)
	select {
	case <-ctx.Done():
		return exit(Refused, "%s %s: stopped while waiting out the rate limit: %w", method, printable(path), ctx.Err())
	case <-time.After(wait):
		return nil
	}
}
