package workers

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// transient reports whether a heartbeat failed because the database could not be
// reached in time — the connection broke (a restart, a failover, a proxy) or the write
// timed out on an overloaded server — rather than because the database refused it.
// A task stopped by a transient failure is handed back to resume from its checkpoint
// at once, here or on another instance, instead of failing its owner over a blip; when
// the hand-back cannot be written either, the lease goes stale and the task is taken
// over. A refused write fails the task with the reason.
func transient(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown,
		// cannot connect now; 57014: statement canceled (a timeout).
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" ||
			pgErr.Code == "57P03" || pgErr.Code == "57014"
	}
	var netErr net.Error
	return errors.As(err, &netErr) || pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}
