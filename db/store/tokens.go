package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// The personal access token aggregate: an owner makes, lists and revokes their tokens;
// the API finds the user behind a bearer token by its hash.

// MaxAPITokens is how many tokens one owner may hold at once: enough for every job
// and machine they automate, few enough that the list stays a list.
const MaxAPITokens = 50

// ErrTooManyTokens means the owner already holds MaxAPITokens tokens.
var ErrTooManyTokens = errors.New("store: too many API tokens")

// APIToken is a personal access token as its owner's list shows it; the token itself
// is never stored, only its hash and Hint, its first characters.
type APIToken struct {
	ID         int64
	Name       string
	Hint       string
	CreatedAt  time.Time
	LastUsedAt *time.Time // nil until the token is first used
}

// NewAPIToken is a token to store: its name, the SHA-256 of the token and its hint.
type NewAPIToken struct {
	Name      string
	TokenHash []byte
	Hint      string
}

// CreateAPIToken stores a new token of owner; ErrTooManyTokens when they hold
// MaxAPITokens already.
func (s *Store) CreateAPIToken(ctx context.Context, owner Owner, t NewAPIToken) (APIToken, error) {
	row, err := s.q.CreateAPIToken(ctx, s.pool, dbsqlc.CreateAPITokenParams{
		OwnerUserID: owner.UserID(), Name: t.Name, TokenHash: t.TokenHash, Hint: t.Hint, MaxTokens: MaxAPITokens,
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return APIToken{}, ErrTooManyTokens
	}
	if err != nil {
		return APIToken{}, fmt.Errorf("store: create api token: %w", err)
	}
	return APIToken(row), nil
}

// APITokens lists owner's tokens, newest first.
func (s *Store) APITokens(ctx context.Context, owner Owner) ([]APIToken, error) {
	rows, err := s.q.ListAPITokens(ctx, s.pool, owner.UserID())
	if err != nil {
		return nil, fmt.Errorf("store: list api tokens: %w", err)
	}
	out := make([]APIToken, len(rows))
	for i, r := range rows {
		out[i] = APIToken(r)
	}
	return out, nil
}

// RevokeAPIToken deletes owner's token id and returns its name; the next request with
// it is refused. A token that does not exist or is someone else's is ErrNotFound.
func (s *Store) RevokeAPIToken(ctx context.Context, id int64, owner Owner) (string, error) {
	name, err := s.q.DeleteAPIToken(ctx, s.pool, dbsqlc.DeleteAPITokenParams{ID: id, OwnerUserID: owner.UserID()})
	if err != nil {
		return "", readError("revoke api token", err)
	}
	return name, nil
}

// TokenUser is the user a bearer token acts for.
type TokenUser struct {
	User       User
	TokenID    int64
	LastUsedAt *time.Time
}

// APITokenByHash returns the user behind the token whose SHA-256 is tokenHash, or
// ErrNotFound when no token (or a revoked one) hashes to it.
func (s *Store) APITokenByHash(ctx context.Context, tokenHash []byte) (TokenUser, error) {
	row, err := s.q.AuthenticateAPIToken(ctx, s.pool, tokenHash)
	if err != nil {
		return TokenUser{}, readError("api token", err)
	}
	return TokenUser{User: userFrom(row.AppUser), TokenID: row.TokenID, LastUsedAt: row.LastUsedAt}, nil
}

// TouchAPIToken records that owner's token id was used now; at most once a minute.
func (s *Store) TouchAPIToken(ctx context.Context, id int64, owner Owner) error {
	if _, err := s.q.TouchAPIToken(ctx, s.pool, dbsqlc.TouchAPITokenParams{ID: id, OwnerUserID: owner.UserID()}); err != nil {
		return fmt.Errorf("store: touch api token: %w", err)
	}
	return nil
}
