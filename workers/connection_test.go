package workers

import (
	"context"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"
)

func TestTransient(t *testing.T) {
	t.Parallel()
	transients := []error{
		&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"},
		&pgconn.PgError{Code: "08006"},
		&pgconn.PgError{Code: "57014", Message: "canceling statement due to statement timeout"},
		fmt.Errorf("heartbeat: %w", io.ErrUnexpectedEOF),
		fmt.Errorf("heartbeat: %w", context.DeadlineExceeded),
		&net.OpError{Op: "read", Err: fmt.Errorf("connection reset by peer")},
	}
	for _, err := range transients {
		require.True(t, transient(err), "%v", err)
	}
	refused := []error{
		&pgconn.PgError{Code: "P0001", Message: "raised by a trigger"},
		&pgconn.PgError{Code: "23514"},
		&pgconn.PgError{Code: "42501", Message: "permission denied"},
		fmt.Errorf("some other failure"),
	}
	for _, err := range refused {
		require.False(t, transient(err), "%v", err)
	}
}
