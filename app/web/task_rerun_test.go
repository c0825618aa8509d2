package web_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/report/reporttest"
)

// A re-run copies every conversation of its task: a user may have two waiting or
// running at once, and a click beyond is refused with a sentence and copies nothing.
func TestRerunsPerUserAreLimited(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	task := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{})
	rerun := "/tasks/" + task.ID.String() + "/rerun"
	tasks := func() (n int) {
		require.NoError(t, b.pool.QueryRow(t.Context(), `SELECT count(*) FROM analysis_task WHERE owner_user_id = $1`, b.alice.User.ID).Scan(&n))
		return n
	}

	// Many clicks at once: two re-runs start, the others are refused.
	codes := make([]int, 6)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Go(func() { codes[i] = b.alice.PostForm(t, rerun, nil).StatusCode })
	}
	wg.Wait()
	count := map[int]int{}
	for _, c := range codes {
		count[c]++
	}
	require.Equal(t, map[int]int{http.StatusSeeOther: 2, http.StatusTooManyRequests: 4}, count)
	require.Equal(t, 3, tasks(), "the task and its two re-runs")

	resp := b.alice.Send(t, pageRequest(t, b.alice.BaseURL+rerun, b.alice.CSRFToken))
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	page := parse(t, resp)
	require.Contains(t, page.Text(), "You already have 2 re-runs waiting or running. Start another once one of them has finished.")
	require.Equal(t, 3, tasks(), "a refused re-run copies nothing")

	// Another user is not held back by Alice's re-runs.
	other := reporttest.Insert(t, b.pool, b.bob.User.ID, reporttest.Task{})
	require.Equal(t, http.StatusSeeOther, b.bob.PostForm(t, "/tasks/"+other.ID.String()+"/rerun", nil).StatusCode)

	// Once one of Alice's re-runs has finished, she may start another.
	_, err := b.pool.Exec(t.Context(), `UPDATE analysis_task SET status = 'completed', finished_at = now()
		WHERE id = (SELECT id FROM analysis_task WHERE owner_user_id = $1 AND rerun_of IS NOT NULL LIMIT 1)`, b.alice.User.ID)
	require.NoError(t, err)
	require.Equal(t, http.StatusSeeOther, b.alice.PostForm(t, rerun, nil).StatusCode)
}

// pageRequest is a browser's form post asking for a page in return.
func pageRequest(t *testing.T, target, csrf string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/html")
	req.Header.Set("X-CSRF-Token", csrf)
	return req
}

// TestARerunSaysWhatItRepeats: a re-run's page names and links the diagnosis it repeats,
// and says when that one has been deleted.
func TestARerunSaysWhatItRepeats(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	task := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{})
	resp := b.alice.PostForm(t, "/tasks/"+task.ID.String()+"/rerun", nil)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	rerun := resp.Header.Get("Location")
	var title string
	require.NoError(t, b.pool.QueryRow(t.Context(), `SELECT title FROM analysis_task WHERE id = $1`, task.ID).Scan(&title))

	doc := parse(t, b.alice.Get(t, rerun))
	of := testid(doc, "rerun-of")
	require.Contains(t, of.Text(), "re-run of "+title)
	require.Contains(t, testid(doc, "timings").Text(), "Queued again", "nothing was uploaded when it was made")
	require.Equal(t, "/tasks/"+task.ID.String(), of.Find("a").AttrOr("href", ""))

	_, err := b.pool.Exec(t.Context(), `DELETE FROM analysis_task WHERE id = $1`, task.ID)
	require.NoError(t, err)
	of = testid(parse(t, b.alice.Get(t, rerun)), "rerun-of")
	require.Contains(t, of.Text(), "re-run of a diagnosis since deleted")
	require.Zero(t, of.Find("a").Length())
}
