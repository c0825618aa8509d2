package web_test

import (
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/report/reporttest"
)

// TestTaskListShowsTopIssuesAndTrends: each finished task shows its top issue (its
// first Action's cluster) and, when its title ran more than once, the share of that
// issue over the runs up to it, matched by title in each run; a running task shows
// none, and another owner's runs never count.
func TestTaskListShowsTopIssuesAndTrends(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	start := time.Date(2026, 2, 2, 9, 0, 0, 0, time.UTC)
	insert := func(owner int64, title, status string, day int, topShare float64, topTitle string) uuid.UUID {
		id := reporttest.Insert(t, b.pool, owner, reporttest.Task{Title: title, Status: taskstate.Status(status)}).ID
		_, err := b.pool.Exec(t.Context(), `UPDATE analysis_task SET created_at = $2 WHERE id = $1`, id, start.AddDate(0, 0, day))
		require.NoError(t, err)
		_, err = b.pool.Exec(t.Context(), `UPDATE task_cluster SET prevalence = $2, title = $3 WHERE task_id = $1 AND idx = 0`, id, topShare, topTitle)
		require.NoError(t, err)
		return id
	}
	insert(b.alice.User.ID, "Support bot", "completed", 0, 0.4, "Card numbers shown to users")
	insert(b.alice.User.ID, "Support bot", "completed", 7, 0.3, "card numbers shown to the users")
	insert(b.bob.User.ID, "Support bot", "completed", 8, 0.9, "Card numbers shown to users")
	week3 := insert(b.alice.User.ID, "Support bot", "completed", 14, 0.1, "Card numbers shown to users")
	running := insert(b.alice.User.ID, "Support bot", "running", 15, 0.1, "Card numbers shown to users")
	single := insert(b.alice.User.ID, "Sales bot", "completed", 1, 0.2, "Card numbers shown to users")

	doc := parse(t, b.alice.Get(t, "/tasks"))
	row := func(id uuid.UUID) *goquery.Selection {
		return doc.Find(`[data-task-id="` + id.String() + `"] [data-testid="task-top-issue"]`)
	}
	top := row(week3)
	require.Contains(t, top.Text(), "Card numbers shown to users")
	require.Contains(t, top.Text(), "10%")
	require.Equal(t, "RISK", top.Find(`[data-testid="type-badge"]`).Text())
	spark := top.Find(`[data-testid="sparkline"]`)
	require.Equal(t, 1, spark.Length())
	require.Contains(t, spark.AttrOr("aria-label", ""), "2 Feb 2026, 09:00 UTC: 40%; 9 Feb 2026, 09:00 UTC: 30%; 16 Feb 2026, 09:00 UTC: 10%",
		"each run's share of the issue, near-duplicate titles matched, the other owner's run left out")
	require.Equal(t, "40% → 10% over 3 runs", top.Find(`[data-testid="sparkline-caption"]`).Text())
	require.Contains(t, row(running).Text(), "—", "a running task has no top issue yet")
	require.Zero(t, row(running).Find("svg").Length())
	require.Contains(t, row(single).Text(), "20%")
	require.Zero(t, row(single).Find(`[data-testid="sparkline"]`).Length(), "one run draws no trend")
}
