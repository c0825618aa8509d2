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

func TestConnectionLost(t *testing.T) {
	t.Parallel()
	lost := []error{
		&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"},
		&pgconn.PgError{Code: "08006"},
		fmt.Errorf("heartbeat: %w", io.ErrUnexpectedEOF),
		&net.OpError{Op: "read", Err: fmt.Errorf("connection reset by peer")},
	}
	for _, err := range lost {
		require.True(t, connectionLost(err), "%v", err)
	}
	kept := []error{
		&pgconn.PgError{Code: "55P03", Message: "lock not available"},
		&pgconn.PgError{Code: "23514"},
		context.DeadlineExceeded,
		fmt.Errorf("heartbeat: %w", context.DeadlineExceeded),
	}
	for _, err := range kept {
		require.False(t, connectionLost(err), "%v", err)
	}
}
