package store

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// A search is read from its matches when its posting lists bound them at fewMatches,
// along the walk when they do not, and not at all when reading its lists would read
// more seqs than the limit.
func TestSearchFirstChoosesByTheListsLengths(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.Isolated(t)
	ctx := context.Background()
	var owner int64
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('test', 'limit') RETURNING id`).Scan(&owner))
	task := uuid.New()
	_, err := pool.Exec(ctx, `INSERT INTO analysis_task (id, owner_user_id, title) VALUES ($1, $2, 'limit')`, task, owner)
	require.NoError(t, err)
	// "common" in 2,500 conversations of five batches, "rare" in three of them.
	_, err = pool.Exec(ctx, `INSERT INTO task_search_term (task_id, owner_user_id, term, first_seq, seqs)
		SELECT $1::uuid, $2::bigint, 'common', b * 500 + 1, ARRAY(SELECT generate_series(b * 500 + 1, b * 500 + 500)) FROM generate_series(0, 4) AS b
		UNION ALL SELECT $1, $2, 'rare', 1, '{2, 7}' UNION ALL SELECT $1, $2, 'rare', 1001, '{1200}'`, task, owner)
	require.NoError(t, err)
	s := New(pool)
	search := func(maxReads int64, terms ...string) (dbsqlc.ListTaskConversationsParams, bool) {
		p := listParams(task, owner, ConversationFilter{}, 10)
		for _, term := range terms {
			p.Terms, p.Prefixes = append(p.Terms, term), append(p.Prefixes, true)
		}
		var tooBroad bool
		require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			tooBroad, err = s.searchFirst(ctx, tx, &p, maxReads)
			return err
		}))
		return p, tooBroad
	}

	p, tooBroad := search(maxSearchReads, "rar")
	require.False(t, tooBroad)
	require.Equal(t, []int32{2, 7, 1200}, p.Seqs, "few: listed from its matches")
	require.Nil(t, p.Terms)

	p, _ = search(maxSearchReads, "common", "rare")
	require.Equal(t, []int32{2, 7, 1200}, p.Seqs, "the rarest term bounds the matches")

	p, _ = search(maxSearchReads, "nothing")
	require.NotNil(t, p.Seqs, "no match lists nothing, not everything")
	require.Empty(t, p.Seqs)

	p, tooBroad = search(maxSearchReads, "common")
	require.False(t, tooBroad)
	require.Nil(t, p.Seqs, "many: looked up along the walk")
	require.Equal(t, []string{"common"}, p.Terms)

	p, tooBroad = search(2502, "common", "rare")
	require.True(t, tooBroad, "2,503 seqs to read")
	require.Equal(t, []string{"common", "rare"}, p.Terms, "p is left as it was")
	require.Nil(t, p.Seqs)
}
