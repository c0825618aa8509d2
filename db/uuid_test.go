package db_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbtest"
)

// A uuid.UUID goes to PostgreSQL and back as itself, as a value, through a pointer and
// as NULL, and compares with its text form there.
func TestUUIDsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := dbtest.Tx(t)
	id := uuid.New()
	var back uuid.UUID
	var text string
	require.NoError(t, tx.QueryRow(ctx, `SELECT $1::uuid, $1::uuid::text`, id).Scan(&back, &text))
	require.Equal(t, id, back)
	require.Equal(t, id.String(), text)

	var ptr *uuid.UUID
	require.NoError(t, tx.QueryRow(ctx, `SELECT $1::uuid`, &id).Scan(&ptr))
	require.Equal(t, &id, ptr)
	require.NoError(t, tx.QueryRow(ctx, `SELECT $1::uuid`, (*uuid.UUID)(nil)).Scan(&ptr))
	require.Nil(t, ptr)

	var same bool
	require.NoError(t, tx.QueryRow(ctx, `SELECT $1::uuid = $2::text::uuid`, id, id.String()).Scan(&same))
	require.True(t, same)
}
