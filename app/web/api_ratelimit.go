package web

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/checkup-dev/checkup/app/auth"
)

// tokenLimits paces each token's API requests with a token bucket: API_RATE_BURST at
// once, refilled at API_RATE_PER_MINUTE. The buckets live in this process, so with
// several replicas behind a balancer a token gets that rate from each.
type tokenLimits struct {
	mu      sync.Mutex
	every   rate.Limit
	burst   int
	buckets map[int64]*rate.Limiter
}

// trackedTokens is how many buckets are kept before the full ones are dropped: a full
// bucket is the same as a new one, so dropping it forgets nothing.
const trackedTokens = 10_000

func newTokenLimits(perMinute, burst int) *tokenLimits {
	return &tokenLimits{every: rate.Limit(float64(perMinute) / 60), burst: burst, buckets: map[int64]*rate.Limiter{}}
}

// wait takes one request from token id's bucket at now: zero when it may go ahead,
// otherwise how long until it may (and nothing is taken).
func (l *tokenLimits) wait(id int64, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[id]
	if !ok {
		if len(l.buckets) >= trackedTokens {
			l.dropFull(now)
		}
		b = rate.NewLimiter(l.every, l.burst)
		l.buckets[id] = b
	}
	if b.AllowN(now, 1) {
		return 0
	}
	r := b.ReserveN(now, 1)
	d := r.DelayFrom(now)
	r.CancelAt(now)
	return d
}

func (l *tokenLimits) dropFull(now time.Time) {
	for id, b := range l.buckets {
		if b.TokensAt(now) >= float64(l.burst) {
			delete(l.buckets, id)
		}
	}
}

// apiRateLimit refuses a token's request beyond its rate with 429 and Retry-After,
// the whole seconds until one more request is let through.
func (s *Server) apiRateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, ok := auth.TokenIDFrom(c)
		if !ok {
			return next(c)
		}
		wait := s.limits.wait(id, time.Now())
		if wait <= 0 {
			return next(c)
		}
		secs := max(1, int(math.Ceil(wait.Seconds())))
		c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
		return echo.NewHTTPError(http.StatusTooManyRequests, fmt.Sprintf(
			"Too many requests with this token: it may make %d a minute (API_RATE_PER_MINUTE), %d at once. Try again in %d s.",
			s.deps.Config.APIRatePerMinute, s.deps.Config.APIRateBurst, secs))
	}
}
