package main

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// Eight uploads whose clients send their file a byte a second, each from another user,
// while a third user's task runs: no upload may hold a database connection while it
// waits for its client. The pages answer quickly throughout, the task keeps its lease
// and finishes, and the trickling uploads are still being received at the end.
func TestTricklingUploadsStallNeitherPagesNorTasks(t *testing.T) {
	t.Parallel()
	pool, dbURL := dbtest.Isolated(t)
	o := setupOps(t, pool, dbURL, 150*time.Millisecond)
	p := o.start(t)
	id := o.upload(t, p.Addr, "running.jsonl", sampleSlice(t, 0, 40))
	o.waitTask(t, id, 30*time.Second, "the diagnosis to start", func(task dbsqlc.AnalysisTask) bool {
		return task.Status == "running" && task.Stage == "diagnosis"
	})

	file := sampleSlice(t, 40, 10)
	var trickles []*trickle
	for range 8 {
		s := authtest.NewSession(t, pool, "trickler-"+uuid.NewString()+"@example.com")
		trickles = append(trickles, startTrickle(t, p.Addr, s, file))
	}
	for _, tr := range trickles {
		<-tr.started // each has sent its form up to the file's first bytes
	}

	// The owner's task page and its progress fragment, polled as a browser does, until
	// the task ends.
	client := &http.Client{Timeout: 10 * time.Second}
	var latencies []time.Duration
	var task dbsqlc.AnalysisTask
	deadline := time.Now().Add(60 * time.Second)
	for {
		for _, path := range []string{"/tasks/" + id.String(), "/tasks/" + id.String() + "/progress", "/tasks"} {
			latencies = append(latencies, timedGet(t, client, o.session, "http://"+p.Addr+path))
		}
		task = o.waitTask(t, id, 10*time.Second, "a readable task", func(dbsqlc.AnalysisTask) bool { return true })
		if task.FinishedAt != nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "the task did not finish; it is %s at %s", task.Status, task.Stage)
		time.Sleep(50 * time.Millisecond) // a poller's pace, not a wait for state
	}
	require.Equal(t, "completed", string(task.Status), task.Error)
	require.Zero(t, task.LostCount, "the task kept its lease")
	require.EqualValues(t, 1, task.Attempt)
	require.GreaterOrEqual(t, len(latencies), 30, "enough page loads to judge")
	slices.Sort(latencies)
	p90 := latencies[(len(latencies)*90+99)/100-1]
	p99 := latencies[(len(latencies)*99+99)/100-1]
	slowest := latencies[len(latencies)-1]
	t.Logf("%d page loads while 8 uploads trickled: p50 %s, p90 %s, p99 %s, max %s",
		len(latencies), latencies[len(latencies)/2], p90, p99, slowest)
	// Uploads that held pooled connections blocked pages for as long as the clients
	// took (the first load timed out at 10 s). The bounds hold that off with room for a
	// machine busy with other test packages: p90 under the 200 ms of the issue, and no
	// load above 2 s. The p99 figures on a quiet machine are in BENCHMARKS.md.
	require.Less(t, p90, 200*time.Millisecond, "pages answer while uploads trickle in")
	require.Less(t, slowest, 2*time.Second, "no page waits behind an upload")
	for i, tr := range trickles {
		select {
		case err := <-tr.done:
			t.Fatalf("trickling upload %d ended before its file did: %v", i, err)
		default:
		}
	}
}

// timedGet loads url as the session's browser and returns how long the whole answer
// took; an answer other than 200 fails the test.
func timedGet(t *testing.T, client *http.Client, s authtest.Session, url string) time.Duration {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	req.AddCookie(s.Cookie)
	start := time.Now()
	resp, err := client.Do(req)
	require.NoError(t, err, url)
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
	return time.Since(start)
}

// trickle is an upload whose client sends the form up to the first bytes of the file
// at once and then one byte a second, with the whole form's Content-Length announced,
// as a browser on a bad link would.
type trickle struct {
	started chan struct{}
	done    chan error // the answer's error, or nil once an answer came
}

func startTrickle(t *testing.T, addr string, s authtest.Session, file []byte) *trickle {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, err := w.CreateFormFile("file", "trickle.jsonl")
	require.NoError(t, err)
	head := body.Len() + 16 // the form's start and the file's first bytes
	_, err = part.Write(file)
	require.NoError(t, err)
	require.NoError(t, w.Close())

	ctx, cancel := context.WithCancel(context.Background())
	tr := &trickle{started: make(chan struct{}), done: make(chan error, 1)}
	src := &slowReader{ctx: ctx, data: body.Bytes(), head: head, every: time.Second, started: tr.started}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/tasks", src)
	require.NoError(t, err)
	req.ContentLength = int64(body.Len())
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set(auth.CSRFHeader, s.CSRFToken)
	req.AddCookie(s.Cookie)
	transport := &http.Transport{}
	go func() {
		resp, err := transport.RoundTrip(req)
		if err == nil {
			resp.Body.Close()
		}
		tr.done <- err
	}()
	t.Cleanup(func() { cancel(); transport.CloseIdleConnections() })
	return tr
}

// slowReader hands out data's first head bytes at once and the rest one byte every
// interval, until ctx ends.
type slowReader struct {
	ctx     context.Context
	data    []byte
	head    int
	every   time.Duration
	started chan struct{}
	sent    int
}

func (r *slowReader) Read(p []byte) (int, error) {
	if r.sent >= len(r.data) {
		return 0, io.EOF
	}
	if r.sent < r.head {
		n := copy(p, r.data[r.sent:r.head])
		r.sent += n
		if r.sent == r.head {
			close(r.started)
		}
		return n, nil
	}
	select {
	case <-r.ctx.Done():
		return 0, r.ctx.Err()
	case <-time.After(r.every):
	}
	p[0] = r.data[r.sent]
	r.sent++
	return 1, nil
}
