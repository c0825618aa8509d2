package pipeline

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// refusedValue reports whether err is PostgreSQL refusing a value a unit tried to
// store — a data exception (SQLSTATE class 22: text with U+0000, an escape jsonb
// cannot hold, a number out of range) or a value over a size limit (54000) — rather
// than the database failing. Such a unit is isolated with a warning; why is the
// database's sentence for it.
func refusedValue(err error) (why string, refused bool) {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || !(strings.HasPrefix(pgErr.Code, "22") || pgErr.Code == "54000") {
		return "", false
	}
	return pgErr.Message, true
}
