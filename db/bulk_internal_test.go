package db

import (
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"
)

// TestPreferTCP: the bulk pool tries a loopback TCP address of the same server first,
// every such entry in order (sslmode=prefer makes two of each), and leaves alone a list
// that names other servers or no socket.
func TestPreferTCP(t *testing.T) {
	t.Parallel()
	hosts := func(url string) []string {
		t.Helper()
		c, err := pgconn.ParseConfig(url)
		require.NoError(t, err)
		preferTCP(c)
		out := []string{c.Host}
		for _, f := range c.Fallbacks {
			out = append(out, f.Host)
		}
		return out
	}
	require.Equal(t, []string{"127.0.0.1", "/srv/pg"},
		hosts("postgres://u@/d?host=/srv/pg,127.0.0.1&port=5433&sslmode=disable"))
	require.Equal(t, []string{"127.0.0.1", "127.0.0.1", "/srv/pg"},
		hosts("postgres://u@/d?host=/srv/pg,127.0.0.1&port=5433&sslmode=prefer"), "TLS first, then plain, then the socket")
	require.Equal(t, []string{"/srv/pg", "replica.example"},
		hosts("postgres://u@/d?host=/srv/pg,replica.example&port=5433&sslmode=disable"), "another server")
	require.Equal(t, []string{"/srv/pg", "127.0.0.1"},
		hosts("postgres://u@/d?host=/srv/pg,127.0.0.1&port=5433,5434&sslmode=disable"), "another port")
	require.Equal(t, []string{"db.internal"}, hosts("postgres://u@db.internal:5432/d?sslmode=disable"))
}
