package store

import (
	"context"
	"fmt"
	"time"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// User is a person who signed in, as pages show them.
type User struct {
	ID        int64
	Provider  string
	Email     string
	Name      string
	AvatarURL string
	// Locale is the language the user chose for the pages ("en", "zh-CN"); empty until
	// they choose one.
	Locale string
}

// Owner is the user as the owner of the tasks they create and read.
func (u User) Owner() Owner { return Owner{userID: u.ID} }

// Identity is what an identity provider (or the local sign-in) says about a person.
// Provider and ProviderUserID identify them; the rest is refreshed at every sign-in.
type Identity struct {
	Provider       string
	ProviderUserID string
	Email          string
	Name           string
	AvatarURL      string
}

// NewSession is a session to start: the SHA-256 of its cookie token and how long it
// lives without use.
type NewSession struct {
	TokenHash []byte
	TTL       time.Duration
}

// SignIn upserts the user and starts their session in one transaction, and retires
// the session the browser presented before (previousHash, may be nil), so every
// sign-in gets a fresh token and a planted one is worth nothing.
func (s *Store) SignIn(ctx context.Context, id Identity, session NewSession, previousHash []byte) (User, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return User{}, fmt.Errorf("store: sign in: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }() // a no-op after Commit
	row, err := s.q.UpsertUser(ctx, tx, dbsqlc.UpsertUserParams{
		Provider: id.Provider, ProviderUserID: id.ProviderUserID,
		Email: id.Email, Name: id.Name, AvatarUrl: id.AvatarURL,
	})
	if err != nil {
		return User{}, fmt.Errorf("store: sign in: upsert user: %w", err)
	}
	if previousHash != nil {
		if _, err := s.q.DeleteSession(ctx, tx, previousHash); err != nil {
			return User{}, fmt.Errorf("store: sign in: retire previous session: %w", err)
		}
	}
	if err := s.q.CreateSession(ctx, tx, createSessionParams(row.ID, session)); err != nil {
		return User{}, fmt.Errorf("store: sign in: create session: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return User{}, fmt.Errorf("store: sign in: %w", err)
	}
	return userFrom(row), nil
}

func userFrom(row dbsqlc.AppUser) User {
	return User{ID: row.ID, Provider: row.Provider, Email: row.Email, Name: row.Name, AvatarURL: row.AvatarUrl, Locale: row.Locale}
}

// SetLocale stores the language the owner chose for the pages (a supported code; the
// column's check refuses any other) and has every instance read their sessions again.
func (s *Store) SetLocale(ctx context.Context, owner Owner, code string) error {
	if err := s.q.SetUserLocale(ctx, s.pool, dbsqlc.SetUserLocaleParams{ID: owner.userID, Locale: code}); err != nil {
		return fmt.Errorf("store: set locale: %w", err)
	}
	return nil
}
