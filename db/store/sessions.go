package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// Session is a live session and the user it signs in.
type Session struct {
	User       User
	ExpiresAt  time.Time
	LastSeenAt time.Time
}

// SessionByHash returns the live session whose token hashes to tokenHash, or
// ErrNotFound when there is none or it has expired.
func (s *Store) SessionByHash(ctx context.Context, tokenHash []byte) (Session, error) {
	row, err := s.q.GetSessionUser(ctx, s.pool, dbsqlc.GetSessionUserParams{TokenHash: tokenHash})
	if err != nil {
		return Session{}, readError("session", err)
	}
	return Session{User: userFrom(row.AppUser), ExpiresAt: row.ExpiresAt, LastSeenAt: row.LastSeenAt}, nil
}

// StartSession starts a session for an existing user, without the sign-in's upsert;
// test helpers use it to sign a user in directly.
func (s *Store) StartSession(ctx context.Context, userID int64, session NewSession) error {
	if err := s.q.CreateSession(ctx, s.pool, createSessionParams(userID, session)); err != nil {
		return fmt.Errorf("store: start session: %w", err)
	}
	return nil
}

// TouchSession records that the session was used: last_seen_at and the idle expiry
// (now + idleTTL, never past created_at + maxAge) move, at most once a minute.
func (s *Store) TouchSession(ctx context.Context, tokenHash []byte, idleTTL, maxAge time.Duration) error {
	_, err := s.q.TouchSession(ctx, s.pool, dbsqlc.TouchSessionParams{
		TokenHash: tokenHash, IdleTtl: interval(idleTTL), MaxAge: interval(maxAge),
	})
	if err != nil {
		return fmt.Errorf("store: touch session: %w", err)
	}
	return nil
}

// EndSession deletes the session (sign-out); ending one that does not exist is not an
// error, so signing out twice is harmless.
func (s *Store) EndSession(ctx context.Context, tokenHash []byte) error {
	if _, err := s.q.DeleteSession(ctx, s.pool, tokenHash); err != nil {
		return fmt.Errorf("store: end session: %w", err)
	}
	return nil
}

// PurgeExpiredSessions deletes expired sessions and returns how many. Expired rows
// are ignored anyway; this keeps the table small.
func (s *Store) PurgeExpiredSessions(ctx context.Context) (int64, error) {
	n, err := s.q.PurgeExpiredSessions(ctx, s.pool, nil)
	if err != nil {
		return 0, fmt.Errorf("store: purge expired sessions: %w", err)
	}
	return n, nil
}

func createSessionParams(userID int64, session NewSession) dbsqlc.CreateSessionParams {
	return dbsqlc.CreateSessionParams{TokenHash: session.TokenHash, UserID: userID, Ttl: interval(session.TTL)}
}

func interval(d time.Duration) pgtype.Interval {
	return pgtype.Interval{Microseconds: d.Microseconds(), Valid: true}
}
