package web_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/report/reporttest"
)

// TestPageSaysItWaitsForTheProvider: while a running task's model calls wait for a
// provider that does not answer, the page, its progress fragment and report.json say
// since when; once it answers, they stop saying it.
func TestPageSaysItWaitsForTheProvider(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	task := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Status: "running"})
	base := "/tasks/" + task.ID.String()
	since := time.Date(2026, 3, 4, 5, 6, 0, 0, time.UTC)
	_, err := b.pool.Exec(t.Context(), `UPDATE analysis_task SET provider_down_since = $2 WHERE id = $1`, task.ID, since)
	require.NoError(t, err)

	for _, doc := range []string{base, base + "/progress"} {
		resp := htmx(t, b.alice, http.MethodGet, doc)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		note := testid(parse(t, resp), "provider-down")
		require.Contains(t, note.Text(), "Waiting for the model provider since 4 Mar 2026, 05:06 UTC", doc)
		require.Equal(t, "2026-03-04T05:06:00Z", note.Find("time").AttrOr("datetime", ""))
	}
	var r report.Report
	require.NoError(t, json.Unmarshal([]byte(authtest.Body(t, b.alice.Get(t, base+"/report.json"))), &r))
	require.Equal(t, since, r.Task.ProviderDownSince.UTC())

	_, err = b.pool.Exec(t.Context(), `UPDATE analysis_task SET provider_down_since = NULL WHERE id = $1`, task.ID)
	require.NoError(t, err)
	require.Zero(t, testid(parse(t, htmx(t, b.alice, http.MethodGet, base+"/progress")), "provider-down").Length())
}
