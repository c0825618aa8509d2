package pages_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/views/components"
	"github.com/checkup-dev/checkup/views/pages"
)

func TestTaskListEmptyState(t *testing.T) {
	t.Parallel()
	doc, _ := render(t, pages.TaskList(page, pages.TaskListView{}))
	empty := testid(doc, "empty-state")
	require.Equal(t, 1, empty.Length())
	require.Contains(t, empty.Text(), "JSONL")
	require.Contains(t, empty.Text(), "conversation_id, role, content")
	href, _ := testid(doc, "empty-new-task").Attr("href")
	require.Equal(t, "/tasks/new", href)
	require.Zero(t, testid(doc, "task-table").Length())
}

func TestTaskListRowsPollOnlyWhileRunning(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	v := pages.TaskListView{
		Tasks: []pages.TaskRow{
			{Title: "Running one", Conversations: 100, CreatedAt: now,
				Progress: components.Progress{TaskID: "11111111-1111-1111-1111-111111111111", Status: "running", Stage: "diagnosis", Done: 40, Total: 100}},
			{Title: "Done one", Conversations: 50, Isolated: 2, CreatedAt: now.Add(-time.Hour),
				Progress: components.Progress{TaskID: "22222222-2222-2222-2222-222222222222", Status: "completed"}},
		},
		OlderURL: "/tasks?before=1740819600000000_22222222-2222-2222-2222-222222222222",
	}
	doc, _ := render(t, pages.TaskList(page, v))
	rows := testid(doc, "task-row")
	require.Equal(t, 2, rows.Length())

	running := rows.Eq(0).Find(`[data-testid="task-status"]`)
	trigger, _ := running.Attr("hx-trigger")
	require.Equal(t, "every 2s", trigger)
	get, _ := running.Attr("hx-get")
	require.Equal(t, "/tasks/11111111-1111-1111-1111-111111111111/progress?view=row", get)
	bar := running.Find(`[data-testid="progress-bar"]`)
	require.Equal(t, 1, bar.Length())
	require.Equal(t, "40", bar.AttrOr("value", ""))
	require.Equal(t, "running", running.Find(`[data-testid="status-badge"]`).AttrOr("data-status", ""))

	done := rows.Eq(1)
	require.Zero(t, done.Find("[hx-trigger]").Length(), "a finished task does not poll")
	require.Equal(t, "Completed", done.Find(`[data-testid="status-badge"]`).Text())
	require.Contains(t, done.Find(`[data-testid="task-counts"]`).Text(), "2 could not be analyzed")
	require.Equal(t, 1, doc.Find("[hx-trigger]").Length(), "only running rows poll")

	older := testid(doc, "older")
	require.Equal(t, v.OlderURL, older.AttrOr("href", ""))
	require.Zero(t, testid(doc, "newest").Length(), "the first page has no link to itself")
}

// Upload times read relative to now, to the second on hover; a title that is the file
// name is not followed by the file name again.
func TestTaskListTimesAndFileNames(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	v := pages.TaskListView{Now: now, Tasks: []pages.TaskRow{
		{Title: "export.jsonl", SourceFilename: "export.jsonl", CreatedAt: now.Add(-42 * time.Second),
			Progress: components.Progress{TaskID: "11111111-1111-1111-1111-111111111111", Status: "completed"}},
		{Title: "March bot", SourceFilename: "march.jsonl", CreatedAt: now.Add(-2*time.Minute - 5*time.Second),
			Progress: components.Progress{TaskID: "22222222-2222-2222-2222-222222222222", Status: "completed"}},
		{Title: "Old", CreatedAt: now.Add(-48 * time.Hour),
			Progress: components.Progress{TaskID: "33333333-3333-3333-3333-333333333333", Status: "completed"}},
		{Title: "Older", CreatedAt: now.Add(-7 * 24 * time.Hour),
			Progress: components.Progress{TaskID: "44444444-4444-4444-4444-444444444444", Status: "completed"}},
	}}
	doc, _ := render(t, pages.TaskList(page, v))
	times := testid(doc, "task-uploaded")
	require.Equal(t, "just now", times.Eq(0).Text(), "under a minute")
	require.Equal(t, "1 Mar 2025, 09:59:18 UTC", times.Eq(0).AttrOr("title", ""))
	require.Equal(t, "2 min ago", times.Eq(1).Text())
	require.Equal(t, "2 days ago", times.Eq(2).Text())
	require.Equal(t, "22 Feb 2025, 10:00 UTC", times.Eq(3).Text(), "older than a week")

	rows := testid(doc, "task-row")
	require.NotContains(t, rows.Eq(0).Find("td").First().Find(".muted").Text(), "export.jsonl")
	require.Contains(t, rows.Eq(1).Find("td").First().Text(), "march.jsonl")
}

func TestTaskListMarksReruns(t *testing.T) {
	t.Parallel()
	now := time.Now()
	doc, _ := render(t, pages.TaskList(page,
		pages.TaskListView{Now: now, Tasks: []pages.TaskRow{
			{Title: "March bot", CreatedAt: now, Progress: components.Progress{TaskID: "a", Status: "completed"}, Rerun: true},
			{Title: "March bot", CreatedAt: now.Add(-time.Hour), Progress: components.Progress{TaskID: "b", Status: "completed"}},
		}}))
	rows := testid(doc, "task-row")
	require.Equal(t, 2, rows.Length())
	require.Equal(t, 1, rows.Eq(0).Find(`[data-testid="rerun-mark"]`).Length())
	require.Equal(t, 0, rows.Eq(1).Find(`[data-testid="rerun-mark"]`).Length())
}

// A claimed task whose first stage is not reported yet reads "Starting…" in the list,
// as on its page.
func TestTaskListRowOfAClaimedTaskSaysStarting(t *testing.T) {
	t.Parallel()
	v := pages.TaskListView{Tasks: []pages.TaskRow{{Title: "Just claimed", Conversations: 10, CreatedAt: time.Now(),
		Progress: components.Progress{TaskID: "33333333-3333-3333-3333-333333333333", Status: "running", Stage: "queued"}}}}
	doc, _ := render(t, pages.TaskList(page, v))
	require.Contains(t, testid(doc, "task-status").Text(), "Starting…")
	require.NotContains(t, testid(doc, "task-status").Text(), "Queued")
}
