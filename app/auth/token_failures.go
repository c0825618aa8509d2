package auth

import (
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Failed token lookups are paced per client address, so a client sending made-up
// tokens costs a lookup a few times a minute instead of as fast as it can send. The
// address is the connection's (behind a reverse proxy, the proxy's: a header naming
// the client could be forged to dodge the count).
const (
	tokenFailuresPerMinute = 30
	tokenFailuresBurst     = 30
	trackedAddresses       = 10_000
)

// tokenFailures holds one bucket of failed lookups per client address.
type tokenFailures struct {
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

// blocked returns how long the address of r must wait before its next lookup, zero
// when it may go ahead.
func (f *tokenFailures) blocked(r *http.Request, now time.Time) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.buckets[clientAddress(r)]
	if !ok || b.TokensAt(now) >= 1 {
		return 0
	}
	res := b.ReserveN(now, 1)
	defer res.CancelAt(now)
	return res.DelayFrom(now)
}

// failed counts a failed lookup from r's address.
func (f *tokenFailures) failed(r *http.Request, now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.buckets == nil {
		f.buckets = map[string]*rate.Limiter{}
	}
	addr := clientAddress(r)
	b, ok := f.buckets[addr]
	if !ok {
		if len(f.buckets) >= trackedAddresses {
			for a, other := range f.buckets {
				if other.TokensAt(now) >= tokenFailuresBurst {
					delete(f.buckets, a)
				}
			}
		}
		b = rate.NewLimiter(rate.Limit(float64(tokenFailuresPerMinute)/60), tokenFailuresBurst)
		f.buckets[addr] = b
	}
	b.AllowN(now, 1)
}

func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
