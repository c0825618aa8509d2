package workers

import (
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// connectionLost reports whether err is the connection to PostgreSQL breaking (the
// server restarting, a proxy dropping it) rather than the database refusing or timing
// out a write. A task stopped by it is handed back to resume at once — here or on
// another instance — instead of failing its owner over a blip; when the hand-back
// cannot be written either, the lease goes stale and the task is taken over.
func connectionLost(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown,
		// cannot connect now.
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	}
	var netErr net.Error
	if errors.As(err, &netErr) && !netErr.Timeout() {
		return true
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}
