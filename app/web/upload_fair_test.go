package web_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// newTaskLock is the advisory lock class under which an upload publishes its task
// (db/store): held by the test, it keeps an upload holding its bulk connection.
const newTaskLock = 0x72726e

// TestOneUsersUploadsLeaveABulkConnectionForOthers holds Ann's uploads at the end of
// their COPY (the test takes the lock their publication waits for), with two of them
// under way: only one of them holds a connection of the bulk pool (two connections), so
// Bo's upload goes through meanwhile; once the lock is let go, both of Ann's finish.
func TestOneUsersUploadsLeaveABulkConnectionForOthers(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	ctx := context.Background()
	bulk, err := db.OpenBulk(ctx, pool)
	require.NoError(t, err)
	t.Cleanup(bulk.Close)
	cfg, _, err := config.Load(func(k string) string { return map[string]string{"MIN_CONVERSATIONS": "1"}[k] })
	require.NoError(t, err)
	srv := web.New(web.Deps{Config: cfg, Pool: pool, BulkPool: bulk, Logger: slog.New(slog.DiscardHandler)})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	ann := authtest.SignIn(t, pool, ts.URL, "ann-"+uuid.NewString()+"@example.com")
	bo := authtest.SignIn(t, pool, ts.URL, "bo-"+uuid.NewString()+"@example.com")
	file, err := os.ReadFile(samplePath)
	require.NoError(t, err)

	hold, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer hold.Rollback(ctx)
	_, err = hold.Exec(ctx, `SELECT pg_advisory_xact_lock($1, mod($2::bigint, 2147483647)::int)`, newTaskLock, ann.User.ID)
	require.NoError(t, err)

	var wg sync.WaitGroup
	annStatus := make([]int, 2)
	for i := range annStatus {
		wg.Go(func() {
			annStatus[i] = upload(t, ann, titlePart("Ann's"), filePart("ann.jsonl", file)).StatusCode
		})
	}
	waiting := func() int {
		var n int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
			AND classid = $1 AND objid = mod($2::bigint, 2147483647)`, newTaskLock, ann.User.ID).Scan(&n))
		return n
	}
	deadline := time.Now().Add(20 * time.Second)
	for waiting() == 0 {
		require.True(t, time.Now().Before(deadline), "Ann's first upload reaches its publication")
		time.Sleep(10 * time.Millisecond)
	}

	boCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	body, contentType := multipartBody(t, part{name: "_csrf", content: []byte(bo.CSRFToken)}, titlePart("Bo's"), filePart("bo.jsonl", file))
	req, err := http.NewRequestWithContext(boCtx, http.MethodPost, ts.URL+"/tasks", body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", contentType)
	resp, err := bo.HTTP.Do(req)
	require.NoError(t, err, "Bo's upload is not held behind Ann's")
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, 1, waiting(), "one of Ann's uploads holds a bulk connection; the other waits without one")

	require.NoError(t, hold.Rollback(ctx))
	wg.Wait()
	require.Equal(t, []int{http.StatusSeeOther, http.StatusSeeOther}, annStatus)
}
