package web_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/report/reporttest"
)

// startedSite is one Checkup server on pool with its caches on, as the binary runs it;
// progressTTL zero keeps the progress cache's own.
func startedSite(t *testing.T, pool *pgxpool.Pool, progressTTL time.Duration) string {
	t.Helper()
	cfg, _, err := config.Load(func(string) string { return "" })
	require.NoError(t, err)
	site := web.New(web.Deps{Config: cfg, Pool: pool, Logger: slog.New(slog.DiscardHandler), ProgressCacheTTL: progressTTL})
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

// How a test changes a task's progress: as a worker does (announced, the last
// announcement long ago), within a second of the last announcement (limited), or
// without the trigger, as no statement may (quietly).
const (
	announced = iota
	limited
	quietly
)

// setDone sets the task's count as how says.
func setDone(t *testing.T, pool *pgxpool.Pool, task uuid.UUID, done, how int) {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	switch how {
	case announced:
		_, err = tx.Exec(ctx, `UPDATE analysis_task SET progress_announced_at = NULL WHERE id = $1`, task)
	case limited:
		_, err = tx.Exec(ctx, `UPDATE analysis_task SET progress_announced_at = now() + interval '1 hour' WHERE id = $1`, task)
	case quietly:
		_, err = tx.Exec(ctx, `ALTER TABLE analysis_task DISABLE TRIGGER analysis_task_progress_changed`)
	}
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `UPDATE analysis_task SET progress_done = $2 WHERE id = $1`, task, done)
	require.NoError(t, err)
	if how == quietly {
		_, err = tx.Exec(ctx, `ALTER TABLE analysis_task ENABLE TRIGGER analysis_task_progress_changed`)
		require.NoError(t, err)
	}
	require.NoError(t, tx.Commit(ctx))
}

// cached makes sure c's instance serves the task's progress from its cache: shown 5
// of 6, the task is set to 2 behind its back, and the instance still shows 5.
func cached(t *testing.T, c *authtest.Client, pool *pgxpool.Pool, task uuid.UUID) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		setDone(t, pool, task, 5, announced)
		eventually(t, c, task, "5 of 6", shows("5 of 6"))
		setDone(t, pool, task, 2, quietly)
		if _, body := poll(t, c, task); shownCount(body) == "5 of 6" {
			return
		}
		require.True(t, time.Now().Before(deadline), "the instance never served the progress from its cache")
	}
}

func shows(count string) func(int, string) bool {
	return func(status int, body string) bool { return status == http.StatusOK && shownCount(body) == count }
}

// shownCount is the count a progress fragment shows ("4 of 6"), not its stage's step
// ("step 5 of 6"); "" when it shows none.
func shownCount(body string) string {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		return ""
	}
	count, _, _ := strings.Cut(testid(doc, "progress-count").Text(), " (")
	return count
}

// A running task's progress is served from each instance's cache, and the changes a
// worker makes reach it on every instance as they are announced: a moved count at
// most once a second, any other change at once, and a long error that does not fit
// in a notification by reading the row again. Another user never gets it.
func TestProgressFollowsTheWorkerOnEveryInstance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	poolA, dbURL := dbtest.Isolated(t)
	poolB, err := db.Open(ctx, dbURL)
	require.NoError(t, err)
	t.Cleanup(poolB.Close)
	// B keeps a copy a minute: only an announcement changes what it shows.
	a, b := startedSite(t, poolA, 0), startedSite(t, poolB, time.Minute)
	alice := authtest.SignIn(t, poolA, a, "alice-"+uuid.NewString()+"@example.com")
	bob := authtest.SignIn(t, poolA, a, "bob-"+uuid.NewString()+"@example.com")
	aliceB := on(alice, b)
	task := reporttest.Insert(t, poolA, alice.User.ID, reporttest.Task{Status: "running"}).ID
	fence := reporttest.Insert(t, poolA, alice.User.ID, reporttest.Task{Status: "running"}).ID

	cached(t, aliceB, poolA, task)
	status, _ := poll(t, on(bob, b), task)
	require.Equal(t, http.StatusNotFound, status, "another user's poll of a cached task")

	setDone(t, poolA, task, 4, announced)
	eventually(t, aliceB, task, "4 of 6 on B", shows("4 of 6"))
	eventually(t, alice, task, "4 of 6 on A", shows("4 of 6"))

	// A count moved within a second of the last announcement is not announced: the
	// fence's announcement, committed after it, arrives after it would have.
	eventually(t, aliceB, fence, "the fence on B", shows("5 of 6"))
	setDone(t, poolA, task, 3, limited)
	setDone(t, poolA, fence, 1, announced)
	eventually(t, aliceB, fence, "the fence's change on B", shows("1 of 6"))
	_, body := poll(t, aliceB, task)
	require.Equal(t, "4 of 6", shownCount(body), "the limited change was not announced")

	// Any other change is announced at once, with the count as it is now.
	_, err = poolA.Exec(ctx, `UPDATE analysis_task SET stage = 'clustering' WHERE id = $1`, task)
	require.NoError(t, err)
	eventually(t, aliceB, task, "the new stage on B", shows("3 of 6"))

	_, err = poolA.Exec(ctx, `UPDATE analysis_task SET progress_done = 2, error = repeat('x', 10000) WHERE id = $1`, task)
	require.NoError(t, err, "a change too long to announce whole")
	eventually(t, aliceB, task, "2 of 6 on B after the long error", shows("2 of 6"))

	// A transaction that announced announces each later change too: the last
	// notification holds the count it commits.
	tx, err := poolA.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	for _, change := range []string{`error = ''`, `progress_done = 1`, `progress_done = 3`} {
		_, err = tx.Exec(ctx, `UPDATE analysis_task SET `+change+` WHERE id = $1`, task)
		require.NoError(t, err)
	}
	require.NoError(t, tx.Commit(ctx))
	eventually(t, aliceB, task, "the transaction's last count on B", shows("3 of 6"))

	// Every column the fragment shows is carried whole: B, answering from what was
	// announced, says what an instance without a cache reads.
	cfg, _, err := config.Load(func(string) string { return "" })
	require.NoError(t, err)
	uncached := httptest.NewServer(web.New(web.Deps{Config: cfg, Pool: poolA, Logger: slog.New(slog.DiscardHandler)}).Handler())
	t.Cleanup(uncached.Close)
	_, err = poolA.Exec(ctx, `UPDATE analysis_task SET stage = 'diagnosis', progress_total = 7, attempt = attempt + 1,
		lost_count = lost_count + 1, error = 'the model provider timed out', cancel_requested_at = now(),
		provider_down_since = now() - interval '3 minutes' WHERE id = $1`, task)
	require.NoError(t, err)
	eventually(t, aliceB, task, "B showing what the database holds", func(status int, body string) bool {
		_, read := poll(t, on(alice, uncached.URL), task)
		return status == http.StatusOK && shownCount(body) == "3 of 7" && body == read
	})
}

// What is not announced reaches the page when the copy expires, within the poll's
// interval: the finish, and a deletion elsewhere. A deletion here is seen at once,
// even on an instance that keeps its copies a minute.
func TestProgressLearnsOfTheFinishWithinAPoll(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.Isolated(t)
	a := startedSite(t, pool, 0)
	alice := authtest.SignIn(t, pool, a, "alice-"+uuid.NewString()+"@example.com")
	tasks := make([]uuid.UUID, 2)
	for i := range tasks {
		tasks[i] = reporttest.Insert(t, pool, alice.User.ID, reporttest.Task{Status: "running"}).ID
		eventually(t, alice, tasks[i], "the running task", shows("5 of 6"))
	}

	_, err := pool.Exec(t.Context(), `UPDATE analysis_task SET status = 'completed', finished_at = now() WHERE id = $1`, tasks[0])
	require.NoError(t, err)
	eventually(t, alice, tasks[0], "the finished page", func(status int, body string) bool {
		return status == http.StatusOK && strings.Contains(body, `data-status="completed"`)
	})

	_, err = pool.Exec(t.Context(), `DELETE FROM analysis_task WHERE id = $1`, tasks[1])
	require.NoError(t, err)
	eventually(t, alice, tasks[1], "the task deleted elsewhere gone", func(status int, _ string) bool { return status == http.StatusNotFound })

	long := on(alice, startedSite(t, pool, time.Minute))
	deleted := reporttest.Insert(t, pool, alice.User.ID, reporttest.Task{Status: "running"}).ID
	cached(t, long, pool, deleted)
	resp := htmx(t, long, http.MethodDelete, "/tasks/"+deleted.String())
	resp.Body.Close()
	require.Less(t, resp.StatusCode, 400)
	status, _ := poll(t, long, deleted)
	require.Equal(t, http.StatusNotFound, status, "the task deleted here")
}

// A finish is announced: an instance that keeps its copies a minute shows the finished
// task at the first poll after the finish's announcement arrives, so a page stops
// polling with the end (before, the cached "running" answered for up to a TTL more).
func TestProgressLearnsOfTheFinishAtOnce(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.Isolated(t)
	alice := authtest.SignIn(t, pool, startedSite(t, pool, 0), "alice-"+uuid.NewString()+"@example.com")
	long := on(alice, startedSite(t, pool, time.Minute))
	task := reporttest.Insert(t, pool, alice.User.ID, reporttest.Task{Status: "running"}).ID
	cached(t, long, pool, task)

	_, err := pool.Exec(t.Context(), `UPDATE analysis_task SET status = 'completed', finished_at = now() WHERE id = $1`, task)
	require.NoError(t, err)
	eventually(t, long, task, "the finished page", func(status int, body string) bool {
		return status == http.StatusOK && strings.Contains(body, `data-status="completed"`)
	})
}
