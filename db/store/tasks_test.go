package store_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/store"
)

func TestTaskCursorRoundTrip(t *testing.T) {
	t.Parallel()
	c := store.TaskCursor{CreatedAt: time.Date(2025, 3, 1, 10, 0, 0, 123456000, time.UTC), ID: uuid.New()}
	got, err := store.ParseTaskCursor(c.String())
	require.NoError(t, err)
	require.Equal(t, c, got, "microsecond precision, like PostgreSQL")
	for _, bad := range []string{"", "123", "x_" + c.ID.String(), "123_not-a-uuid"} {
		_, err := store.ParseTaskCursor(bad)
		require.ErrorIs(t, err, store.ErrBadCursor, bad)
	}
}
