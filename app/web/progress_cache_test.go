package web_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/report/reporttest"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// startedSite is one Checkup server on pool with its caches on, as the binary runs it.
func startedSite(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	cfg, _, err := config.Load(func(string) string { return "" })
	require.NoError(t, err)
	site := web.New(web.Deps{Config: cfg, Pool: pool, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, site.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, site.Stop(context.Background())) })
	srv := httptest.NewServer(site.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// on is c sending to another instance: the cookie jar ignores ports, so the session
// goes with it.
func on(c *authtest.Client, base string) *authtest.Client {
	other := *c
	other.BaseURL = base
	return &other
}

// poll is the task page's poll of the progress fragment: its status and body.
func poll(t *testing.T, c *authtest.Client, id uuid.UUID) (int, string) {
	t.Helper()
	resp := htmx(t, c, http.MethodGet, "/tasks/"+id.String()+"/progress")
	return resp.StatusCode, authtest.Body(t, resp)
}

// eventually polls until the answer satisfies ok, or fails after a few seconds.
func eventually(t *testing.T, c *authtest.Client, id uuid.UUID, what string, ok func(status int, body string) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if status, body := poll(t, c, id); ok(status, body) {
			return
		}
		require.True(t, time.Now().Before(deadline), "%s never came", what)
	}
}

// A running task's progress is served from each instance's cache, and every change
// the worker makes reaches it on every instance: progress and a long error that does
// not fit in a notification as they are announced, the finish and a deletion, which
// are not, within the cache's two seconds. Another user never gets it.
func TestProgressFollowsTheWorkerOnEveryInstance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	poolA, dbURL := dbtest.Isolated(t)
	poolB, err := db.Open(ctx, dbURL)
	require.NoError(t, err)
	t.Cleanup(poolB.Close)
	a, b := startedSite(t, poolA), startedSite(t, poolB)
	alice := authtest.SignIn(t, poolA, a, "alice-"+uuid.NewString()+"@example.com")
	bob := authtest.SignIn(t, poolA, a, "bob-"+uuid.NewString()+"@example.com")
	aliceB := on(alice, b)
	task := reporttest.Insert(t, poolA, alice.User.ID, reporttest.Task{Status: "running"}).ID
	setDone := func(done int, quietly bool) {
		t.Helper()
		tx, err := poolA.Begin(ctx)
		require.NoError(t, err)
		defer tx.Rollback(ctx)
		if quietly { // as no statement may: without the trigger's announcement
			_, err = tx.Exec(ctx, `ALTER TABLE analysis_task DISABLE TRIGGER analysis_task_progress_changed`)
			require.NoError(t, err)
		}
		_, err = tx.Exec(ctx, `UPDATE analysis_task SET progress_done = $2 WHERE id = $1`, task, done)
		require.NoError(t, err)
		_, err = tx.Exec(ctx, `ALTER TABLE analysis_task ENABLE TRIGGER analysis_task_progress_changed`)
		require.NoError(t, err)
		require.NoError(t, tx.Commit(ctx))
	}
	shows := func(count string) func(int, string) bool {
		return func(status int, body string) bool { return status == http.StatusOK && strings.Contains(body, count) }
	}

	// B serves the progress from its cache: a change made behind its back, without the
	// announcement, is not seen there.
	deadline := time.Now().Add(10 * time.Second)
	for {
		setDone(5, false)
		eventually(t, aliceB, task, "5 of 6 on B", shows("5 of 6"))
		setDone(2, true)
		if _, body := poll(t, aliceB, task); strings.Contains(body, "5 of 6") {
			break
		}
		require.True(t, time.Now().Before(deadline), "instance B never served the progress from its cache")
	}
	status, _ := poll(t, on(bob, b), task)
	require.Equal(t, http.StatusNotFound, status, "another user's poll of a cached task")

	setDone(4, false)
	eventually(t, aliceB, task, "4 of 6 on B", shows("4 of 6"))
	eventually(t, alice, task, "4 of 6 on A", shows("4 of 6"))

	_, err = poolA.Exec(ctx, `UPDATE analysis_task SET progress_done = 3, error = repeat('x', 10000) WHERE id = $1`, task)
	require.NoError(t, err, "a change too long to announce whole")
	eventually(t, aliceB, task, "3 of 6 on B after the long error", shows("3 of 6"))

	_, err = poolA.Exec(ctx, `UPDATE analysis_task SET status = 'completed', finished_at = now(), error = '' WHERE id = $1`, task)
	require.NoError(t, err)
	eventually(t, aliceB, task, "the finished page on B", func(status int, body string) bool {
		return status == http.StatusOK && strings.Contains(body, `data-status="completed"`)
	})

	running := reporttest.Insert(t, poolA, alice.User.ID, reporttest.Task{Status: "running"}).ID
	eventually(t, aliceB, running, "the second task on B", shows("5 of 6"))
	_, err = poolA.Exec(ctx, `DELETE FROM analysis_task WHERE id = $1`, running)
	require.NoError(t, err)
	eventually(t, aliceB, running, "the deleted task gone on B", func(status int, _ string) bool { return status == http.StatusNotFound })
}
