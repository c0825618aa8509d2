package check

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRetryAfter: seconds and HTTP dates are read, at least a second and at most a
// minute; a missing,
// unreadable or past Retry-After is the short default, and says it was not given.
func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		header string
		wait   time.Duration
		said   bool
	}{
		{"7", 7 * time.Second, true},
		{" 0 ", time.Second, true},
		{"3600", maxRetryAfter, true},
		{now.Add(20 * time.Second).Format(http.TimeFormat), 20 * time.Second, true},
		{now.Add(time.Hour).Format(http.TimeFormat), maxRetryAfter, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), defaultRetryAfter, false},
		{"", defaultRetryAfter, false},
		{"soon", defaultRetryAfter, false},
		{"-5", defaultRetryAfter, false},
	} {
		h := http.Header{}
		if c.header != "" {
			h.Set("Retry-After", c.header)
		}
		wait, said := retryAfter(h, now)
		require.Equal(t, c.wait, wait, c.header)
		require.Equal(t, c.said, said, c.header)
	}
}
