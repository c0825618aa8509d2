package web_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/report/reporttest"
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

	form := alice.browser.Get(t, "/tasks/new")
	require.Equal(t, http.StatusOK, form.StatusCode)
	require.Contains(t, parse(t, form).Find(`[data-testid="upload-errors"]`).Text(), why, "said before a file is chosen")
	resp := upload(t, alice.browser, file)
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	require.Contains(t, parse(t, resp).Find(`[data-testid="upload-errors"]`).Text(), why+" Upload this file again once one of them has finished")
	status, body := b.uploadAPI(t, alice.api, file)
	require.Equal(t, http.StatusTooManyRequests, status)
	require.Contains(t, decode[apiErr](t, body).Error, why)
	rerun := alice.browser.Send(t, pageRequest(t, alice.browser.BaseURL+"/tasks/"+done.ID.String()+"/rerun", alice.browser.CSRFToken))
	require.Equal(t, http.StatusTooManyRequests, rerun.StatusCode)
	require.Contains(t, parse(t, rerun).Text(), why+" Run this diagnosis again once one of them has finished")
	missing := alice.browser.PostForm(t, "/tasks/"+uuid.NewString()+"/rerun", nil)
	require.Equal(t, http.StatusNotFound, missing.StatusCode, "a task that is not hers is a 404, full queue or not")
	require.Equal(t, 3, tasks(), "nothing refused was stored")

	require.Equal(t, http.StatusSeeOther, upload(t, bob.browser, file).StatusCode, "another user is not held back")
	require.Zero(t, parse(t, bob.browser.Get(t, "/tasks/new")).Find(`[data-testid="upload-errors"]`).Length())

	_, err := b.pool.Exec(t.Context(), `UPDATE analysis_task SET status = 'canceled', finished_at = now()
		WHERE id = (SELECT id FROM analysis_task WHERE owner_user_id = $1 AND status = 'pending' LIMIT 1)`, alice.browser.User.ID)
	require.NoError(t, err)
	require.Equal(t, http.StatusSeeOther, upload(t, alice.browser, file).StatusCode, "a finished task makes room")
	require.Equal(t, 4, tasks())
}

// TestTheLastPlaceTakenDuringAnUploadIsRefusedAtItsCommit: when another task takes the
// user's last place while an upload is being copied in (a trigger adds it, in the
// upload's own transaction, once the first conversation is in), the commit's count
// refuses the upload with the same 429 and stores nothing.
func TestTheLastPlaceTakenDuringAnUploadIsRefusedAtItsCommit(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.Isolated(t)
	b := setupUpload(t, pool, 0, ingest.Limits{})
	alice := b.user(t)
	for range 19 {
		reporttest.Insert(t, pool, alice.User.ID, reporttest.Task{Status: taskstate.Pending})
	}
	_, err := pool.Exec(t.Context(), `
		CREATE FUNCTION take_the_last_place() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.seq = 1 THEN
				INSERT INTO analysis_task (owner_user_id, title) VALUES (NEW.owner_user_id, 'taken meanwhile');
			END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER take_the_last_place AFTER INSERT ON task_conversation
			FOR EACH ROW EXECUTE FUNCTION take_the_last_place();`)
	require.NoError(t, err)

	resp := upload(t, alice, filePart("chats.jsonl", sampleLines(t, 3)))
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	require.Contains(t, parse(t, resp).Find(`[data-testid="upload-errors"]`).Text(), "You already have 20 diagnoses waiting or running")
	require.Equal(t, 19, storedFor(t, pool, alice.User.ID).Tasks)
	var copied int
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT count(*) FROM analysis_task WHERE owner_user_id = $1 AND title IN ('chats.jsonl', 'taken meanwhile')`, alice.User.ID).Scan(&copied))
	require.Zero(t, copied, "the refused upload, and what its transaction added, are rolled back")
}
