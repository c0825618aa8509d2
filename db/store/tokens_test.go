package store_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
)

func tokenHash(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// TestAPITokensBelongToTheirOwner makes tokens for two owners: each lists only their
// own, cannot revoke the other's (ErrNotFound, nothing deleted), and a revoked token
// no longer finds its user.
func TestAPITokensBelongToTheirOwner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	s := store.New(pool)
	alice, bob := newOwnerNamed(t, "alice"), newOwnerNamed(t, "bob")

	ci, err := s.CreateAPIToken(ctx, alice, store.NewAPIToken{Name: "ci", TokenHash: tokenHash(t.Name() + "a1"), Hint: "ck_aaaa"})
	require.NoError(t, err)
	_, err = s.CreateAPIToken(ctx, alice, store.NewAPIToken{Name: "laptop", TokenHash: tokenHash(t.Name() + "a2"), Hint: "ck_bbbb"})
	require.NoError(t, err)
	bobs, err := s.CreateAPIToken(ctx, bob, store.NewAPIToken{Name: "bob's", TokenHash: tokenHash(t.Name() + "b1"), Hint: "ck_cccc"})
	require.NoError(t, err)

	list, err := s.APITokens(ctx, alice)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, "laptop", list[0].Name, "newest first")
	require.Nil(t, list[0].LastUsedAt, "not used yet")

	_, err = s.RevokeAPIToken(ctx, bobs.ID, alice)
	require.ErrorIs(t, err, store.ErrNotFound, "another owner's token")
	got, err := s.APITokenByHash(ctx, tokenHash(t.Name()+"b1"))
	require.NoError(t, err)
	require.Equal(t, bob.UserID(), got.User.ID, "Bob's token survived Alice's revoke")

	got, err = s.APITokenByHash(ctx, tokenHash(t.Name()+"a1"))
	require.NoError(t, err)
	require.Equal(t, alice.UserID(), got.User.ID)
	require.Equal(t, ci.ID, got.TokenID)

	name, err := s.RevokeAPIToken(ctx, ci.ID, alice)
	require.NoError(t, err)
	require.Equal(t, "ci", name)
	_, err = s.APITokenByHash(ctx, tokenHash(t.Name()+"a1"))
	require.ErrorIs(t, err, store.ErrNotFound, "a revoked token signs nobody in")
	_, err = s.RevokeAPIToken(ctx, ci.ID, alice)
	require.ErrorIs(t, err, store.ErrNotFound, "revoking twice")
}

// TestAPITokenUseIsRecordedOnceAMinute touches a token twice: the first use is
// recorded, the second within the minute writes nothing.
func TestAPITokenUseIsRecordedOnceAMinute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	s := store.New(pool)
	owner := newOwnerNamed(t, "owner")
	tok, err := s.CreateAPIToken(ctx, owner, store.NewAPIToken{Name: "ci", TokenHash: tokenHash(t.Name()), Hint: "ck_dddd"})
	require.NoError(t, err)
	q := dbsqlc.New()
	n, err := q.TouchAPIToken(ctx, pool, dbsqlc.TouchAPITokenParams{ID: tok.ID, OwnerUserID: owner.UserID()})
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "first use")
	n, err = q.TouchAPIToken(ctx, pool, dbsqlc.TouchAPITokenParams{ID: tok.ID, OwnerUserID: owner.UserID()})
	require.NoError(t, err)
	require.EqualValues(t, 0, n, "a second use within the minute writes nothing")
	n, err = q.TouchAPIToken(ctx, pool, dbsqlc.TouchAPITokenParams{ID: tok.ID, OwnerUserID: store.NewOwner(owner.UserID() + 1_000_000).UserID()})
	require.NoError(t, err)
	require.EqualValues(t, 0, n, "another owner cannot touch it")
	got, err := s.APITokenByHash(ctx, tokenHash(t.Name()))
	require.NoError(t, err)
	require.NotNil(t, got.LastUsedAt)
}

// TestAnOwnerHoldsAtMostMaxAPITokens fills an owner's allowance: one more is
// ErrTooManyTokens and stores nothing; revoking one makes room.
func TestAnOwnerHoldsAtMostMaxAPITokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	s := store.New(pool)
	owner := newOwnerNamed(t, "owner")
	var last store.APIToken
	for i := range store.MaxAPITokens {
		var err error
		last, err = s.CreateAPIToken(ctx, owner, store.NewAPIToken{Name: fmt.Sprint(i), TokenHash: tokenHash(fmt.Sprint(t.Name(), i)), Hint: "ck_eeee"})
		require.NoError(t, err)
	}
	_, err := s.CreateAPIToken(ctx, owner, store.NewAPIToken{Name: "one more", TokenHash: tokenHash(t.Name() + "more"), Hint: "ck_ffff"})
	require.ErrorIs(t, err, store.ErrTooManyTokens)
	list, err := s.APITokens(ctx, owner)
	require.NoError(t, err)
	require.Len(t, list, store.MaxAPITokens)
	_, err = s.RevokeAPIToken(ctx, last.ID, owner)
	require.NoError(t, err)
	_, err = s.CreateAPIToken(ctx, owner, store.NewAPIToken{Name: "one more", TokenHash: tokenHash(t.Name() + "more"), Hint: "ck_ffff"})
	require.NoError(t, err)
}

func newOwnerNamed(t *testing.T, name string) store.Owner {
	t.Helper()
	u, err := dbsqlc.New().UpsertUser(context.Background(), dbtest.Pool(t), dbsqlc.UpsertUserParams{Provider: "test", ProviderUserID: t.Name() + "/" + name})
	require.NoError(t, err)
	return store.NewOwner(u.ID)
}
