package store_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
)

// The long lists of a download come a page at a time and together hold every row, in
// order, across several pages.
func TestReportListsReadEveryRowInPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	var owner int64
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('test', $1) RETURNING id`,
		uuid.NewString()).Scan(&owner))
	var id uuid.UUID
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO analysis_task (owner_user_id, title, conversation_count)
		VALUES ($1, 't', 1203) RETURNING id`, owner).Scan(&id))
	for _, stmt := range []string{
		`INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, message_count)
		 SELECT $1, $2, i, 'c' || i, '[]', 0 FROM generate_series(1, 1203) AS i`,
		`INSERT INTO task_finding (task_id, owner_user_id, conversation_seq, idx, type, category, title, severity, confidence, priority_score)
		 SELECT $1, $2, i, k, 'ACTION', 'tool_error', 't', 3, 0.5, 50 FROM generate_series(1, 1203, 2) AS i, generate_series(0, 1) AS k`,
		`INSERT INTO task_warning (task_id, owner_user_id, stage, message) SELECT $1, $2, 'diagnosis', 'w' || i FROM generate_series(1, 1100) AS i`,
	} {
		_, err := pool.Exec(ctx, stmt, id, owner)
		require.NoError(t, err)
	}
	require.NoError(t, store.New(pool).WithTaskReport(ctx, id, store.NewOwner(owner), func(rows store.ReportRows, lists *store.ReportLists) error {
		seq := int32(0)
		for c, err := range lists.Conversations() {
			require.NoError(t, err)
			require.Equal(t, seq+1, c.Seq)
			seq = c.Seq
		}
		require.EqualValues(t, 1203, seq)
		findings := 0
		for f, err := range lists.Findings() {
			require.NoError(t, err)
			require.Equal(t, int32(findings/2*2+1), f.ConversationSeq)
			require.Equal(t, "c"+strconv.Itoa(int(f.ConversationSeq)), f.ExternalID)
			findings++
		}
		require.Equal(t, 1204, findings)
		warnings := 0
		last := int64(0)
		for w, err := range lists.Warnings() {
			require.NoError(t, err)
			require.Greater(t, w.ID, last)
			last = w.ID
			warnings++
		}
		require.Equal(t, 1100, warnings)
		require.Len(t, rows.Warnings, 100, "the page's own read keeps the first ones")
		return nil
	}))
}
