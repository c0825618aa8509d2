// Package store is the typed access to Checkup's tables for the web layer and the
// tests, one file per aggregate: users, sessions, tasks, a task's upload and a task's
// report. Every function that reads or changes a user's data takes an Owner, and
// passes it into the query's WHERE clause: ownership is part of the query, not a check
// after it.
package store

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// ErrNotFound means the row does not exist or belongs to another owner; the two are
// deliberately the same, so another user's task is a 404, never a 403.
var ErrNotFound = errors.New("store: not found")

// Owner is the user on whose behalf a query runs. There are two sound sources of one:
// the signed-in user (User.Owner, which app/auth takes from the session), so a handler
// cannot name an owner that did not sign in, and a claimed task (ClaimedOwner), whose
// worker writes as the owner the claim read from the row.
type Owner struct{ userID int64 }

// NewOwner wraps a user id, for tests that sign a user up directly.
func NewOwner(userID int64) Owner { return Owner{userID: userID} }

// ClaimedOwner is the owner of the task a worker claimed, read from the claimed row:
// every later write of the worker is scoped to it.
func ClaimedOwner(row dbsqlc.ClaimTaskRow) Owner { return Owner{userID: row.OwnerUserID} }

// UserID is the owner's app_user.id.
func (o Owner) UserID() int64 { return o.userID }

// Store runs the queries on a pool.
type Store struct {
	pool *pgxpool.Pool
	q    *dbsqlc.Queries
}

// New returns a Store on pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool, q: dbsqlc.New()} }

// readError is ErrNotFound for a read that found no row, and err named by what
// otherwise.
func readError(what string, err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	return fmt.Errorf("store: %s: %w", what, err)
}
