package dbtest

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SearchPartition names the partition that holds task's search documents and that
// partition's words' index (migration 00018); ok is false while the task has none.
func SearchPartition(ctx context.Context, pool *pgxpool.Pool, task uuid.UUID) (table, index string, ok bool, err error) {
	err = pool.QueryRow(ctx, `
		SELECT c.relname, ic.relname
		FROM pg_class c
		JOIN pg_index i ON i.indrelid = c.oid
		JOIN pg_class ic ON ic.oid = i.indexrelid
		WHERE c.oid = (SELECT tableoid FROM task_search WHERE task_id = $1 LIMIT 1)
		  AND ic.relam = (SELECT oid FROM pg_am WHERE amname = 'gin')`, task).Scan(&table, &index)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, fmt.Errorf("dbtest: search partition: %w", err)
	}
	return table, index, true, nil
}

// SearchPending is what the pending list of a words' index holds.
type SearchPending struct{ Pages, Entries int64 }

// PendingSearch reads the pending list of the words' index that holds task's search
// documents, nothing while the task has none. It reads it with pgstattuple, of
// PostgreSQL's contrib modules, which it creates in the database when missing.
func PendingSearch(ctx context.Context, pool *pgxpool.Pool, task uuid.UUID) (SearchPending, error) {
	if _, err := pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pgstattuple`); err != nil {
		return SearchPending{}, fmt.Errorf("dbtest: the pending list is read with pgstattuple: %w", err)
	}
	_, index, ok, err := SearchPartition(ctx, pool, task)
	if !ok {
		return SearchPending{}, err
	}
	var p SearchPending
	if err := pool.QueryRow(ctx, `SELECT pending_pages, pending_tuples FROM pgstatginindex($1::regclass)`, index).Scan(&p.Pages, &p.Entries); err != nil {
		return SearchPending{}, fmt.Errorf("dbtest: pending list of %s: %w", index, err)
	}
	return p, nil
}
