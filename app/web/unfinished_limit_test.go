package web_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/report/reporttest"
	"github.com/checkup-dev/checkup/db/taskstate"
)

// TestUnfinishedTasksPerUserAreLimited: with MAX_UNFINISHED_TASKS diagnoses waiting or
// running, a user's upload (page or API) and re-run are refused with a 429 that says
// why, storing nothing; another user is not held back, and a finished task makes room.
func TestUnfinishedTasksPerUserAreLimited(t *testing.T) {
	t.Parallel()
	b := setupAPI(t, map[string]string{"MAX_UNFINISHED_TASKS": "2", "MIN_CONVERSATIONS": "1"})
	alice, bob := b.user(t, "alice"), b.user(t, "bob")
	done := reporttest.Insert(t, b.pool, alice.browser.User.ID, reporttest.Task{})
	for range 2 {
		reporttest.Insert(t, b.pool, alice.browser.User.ID, reporttest.Task{Status: taskstate.Pending})
	}
	file := filePart("chats.jsonl", sampleLines(t, 3))
	tasks := func() int { return storedFor(t, b.pool, alice.browser.User.ID).Tasks }
	const why = "You already have 2 diagnoses waiting or running, the most one person may have at once."

	resp := upload(t, alice.browser, file)
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	require.Contains(t, parse(t, resp).Find(`[data-testid="upload-errors"]`).Text(), why)
	status, body := b.uploadAPI(t, alice.api, file)
	require.Equal(t, http.StatusTooManyRequests, status)
	require.Contains(t, decode[apiErr](t, body).Error, why)
	rerun := alice.browser.Send(t, pageRequest(t, alice.browser.BaseURL+"/tasks/"+done.ID.String()+"/rerun", alice.browser.CSRFToken))
	require.Equal(t, http.StatusTooManyRequests, rerun.StatusCode)
	require.Contains(t, parse(t, rerun).Text(), why)
	require.Equal(t, 3, tasks(), "nothing refused was stored")

	require.Equal(t, http.StatusSeeOther, upload(t, bob.browser, file).StatusCode, "another user is not held back")

	_, err := b.pool.Exec(t.Context(), `UPDATE analysis_task SET status = 'canceled', finished_at = now()
		WHERE id = (SELECT id FROM analysis_task WHERE owner_user_id = $1 AND status = 'pending' LIMIT 1)`, alice.browser.User.ID)
	require.NoError(t, err)
	require.Equal(t, http.StatusSeeOther, upload(t, alice.browser, file).StatusCode, "a finished task makes room")
	require.Equal(t, 4, tasks())
}
