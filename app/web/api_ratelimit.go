package web

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/locale"
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

// reserve takes one request from id's bucket at now; the reservation says how long
// it must wait and can be cancelled to give the request back.
func (l *tokenLimits) reserve(id int64, now time.Time) *rate.Reservation {
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
	return b.ReserveN(now, 1)
}

// tokensPerUser is how many tokens' worth of requests one user may make with all of
// theirs together: two scripts at full pace, not the MaxAPITokens a user may hold.
const tokensPerUser = 2

// waitBoth takes one request from the token's bucket and from its user's at now: zero
// when it may go ahead, otherwise how long until both let it (and nothing is taken).
func waitBoth(tokens, users *tokenLimits, token, user int64, now time.Time) time.Duration {
	t, u := tokens.reserve(token, now), users.reserve(user, now)
	d := max(t.DelayFrom(now), u.DelayFrom(now))
	if d > 0 {
		t.CancelAt(now)
		u.CancelAt(now)
	}
	return d
}

func (l *tokenLimits) dropFull(now time.Time) {
	for id, b := range l.buckets {
		if b.TokensAt(now) >= float64(l.burst) {
			delete(l.buckets, id)
		}
	}
}

// apiRateLimit refuses a request beyond its token's rate, or beyond its user's
// (tokensPerUser times it, whichever tokens sent them), with 429 and Retry-After, the
// whole seconds until one more request is let through.
func (s *Server) apiRateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, ok := auth.TokenIDFrom(c)
		if !ok {
			return next(c)
		}
		wait := waitBoth(s.limits, s.userLimits, id, auth.OwnerFrom(c).UserID(), time.Now())
		if wait <= 0 {
			return next(c)
		}
		secs := max(1, int(math.Ceil(wait.Seconds())))
		c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
		cfg := s.deps.Config
		return echo.NewHTTPError(http.StatusTooManyRequests, locale.Msg("api_refused.rate",
			"PerMinute", cfg.APIRatePerMinute, "Burst", cfg.APIRateBurst, "Seconds", secs))
	}
}
