package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbtest"
)

// TestATaskCompletesBehindPgBouncerInTransactionMode runs an instance behind Debian's
// PgBouncer in transaction mode, where pgx's prepared statements clash: the instance
// says so at start, answers ready, an upload is diagnosed to the end and its pages
// answer, with no error logged.
func TestATaskCompletesBehindPgBouncerInTransactionMode(t *testing.T) {
	t.Parallel()
	pool, dbURL := dbtest.Isolated(t)
	o := setupOps(t, pool, dbtest.PgBouncer(t, dbURL, "transaction", 3), 0)
	p := o.start(t)
	p.WaitOutput(t, 5*time.Second, "statements are sent unprepared")
	id := o.upload(t, p.Addr, "pooled.jsonl", sampleSlice(t, 0, 20))
	o.waitTask(t, id, 60*time.Second, "the end", finished)
	o.checkReport(t, p.Addr, id)
	for _, path := range []string{"/tasks", "/tasks/" + id.String(), "/tasks/" + id.String() + "/conversations?q=refund"} {
		req, err := http.NewRequest(http.MethodGet, "http://"+p.Addr+path, nil)
		require.NoError(t, err)
		req.AddCookie(o.session.Cookie)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "GET %s", path)
	}
	require.NotContains(t, p.Output(), "level=ERROR")
}
