package web_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// slowServer is the real http.Server the app runs (web.Server.HTTPServer), with
// timeouts, on a loopback listener.
func slowServer(t *testing.T, pool, bulk *pgxpool.Pool, timeouts web.Timeouts) string {
	t.Helper()
	cfg, _, err := config.Load(func(string) string { return "" })
	require.NoError(t, err)
	srv := web.New(web.Deps{Config: cfg, Pool: pool, BulkPool: bulk, Logger: slog.New(slog.DiscardHandler), Timeouts: timeouts}).HTTPServer(nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// rawUpload is an upload sent by hand on its own connection: the request's head and
// the form's first bytes are sent at once, the rest when and as the test says.
type rawUpload struct {
	conn net.Conn
	in   *bufio.Reader
	rest []byte
}

// startRawUpload sends POST /tasks with a Content-Length for a form holding file, and
// the form up to the file's first 16 bytes.
func startRawUpload(t *testing.T, addr string, s authtest.Session, file []byte) *rawUpload {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, err := w.CreateFormFile("file", "slow.jsonl")
	require.NoError(t, err)
	head := body.Len() + 16
	_, err = part.Write(file)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	_, err = fmt.Fprintf(conn, "POST /tasks HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n%s: %s\r\nCookie: %s=%s\r\n\r\n",
		addr, w.FormDataContentType(), body.Len(), auth.CSRFHeader, s.CSRFToken, s.Cookie.Name, s.Cookie.Value)
	require.NoError(t, err)
	_, err = conn.Write(body.Bytes()[:head])
	require.NoError(t, err)
	return &rawUpload{conn: conn, in: bufio.NewReader(conn), rest: body.Bytes()[head:]}
}

// slowUploadsHoldingSlots starts two raw uploads of file by s's user and returns them
// once limited (a probe, itself an upload of that user, tried every poll) reports that
// the user's two slots are taken. A probe holds a slot for a moment, so an upload that
// arrives then is refused; it is started again.
func slowUploadsHoldingSlots(t *testing.T, addr string, s authtest.Session, file []byte, within, poll time.Duration, limited func() bool) (first, second *rawUpload) {
	t.Helper()
	uploads := []*rawUpload{startRawUpload(t, addr, s, file), startRawUpload(t, addr, s, file)}
	require.Eventually(t, func() bool {
		for i, u := range uploads {
			if u.answered(t) {
				u.conn.Close()
				uploads[i] = startRawUpload(t, addr, s, file)
			}
		}
		return limited()
	}, within, poll, "the two slow uploads take the user's two slots")
	return uploads[0], uploads[1]
}

// answered reports whether the server has answered or closed the connection already,
// which before the whole body is sent means it refused the upload.
func (u *rawUpload) answered(t *testing.T) bool {
	t.Helper()
	require.NoError(t, u.conn.SetReadDeadline(time.Now().Add(time.Millisecond)))
	_, err := u.in.Peek(1)
	var ne net.Error
	return !errors.As(err, &ne) || !ne.Timeout()
}

// answer reads the server's answer, waiting at most within.
func (u *rawUpload) answer(t *testing.T, within time.Duration) (*http.Response, string) {
	t.Helper()
	require.NoError(t, u.conn.SetReadDeadline(time.Now().Add(within)))
	resp, err := http.ReadResponse(u.in, nil)
	require.NoError(t, err, "an answer within %s", within)
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func slowTimeouts() web.Timeouts {
	return web.Timeouts{Header: 300 * time.Millisecond, BodyIdle: 300 * time.Millisecond, BodyBase: time.Second, BodyRate: 1 << 10}
}

func TestStalledUploadIsCutAndStoresNothing(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	addr := slowServer(t, pool, nil, slowTimeouts())
	s := authtest.NewSession(t, pool, "stall-"+uuid.NewString()+"@example.com")

	u := startRawUpload(t, addr, s, sampleLines(t, 10)) // and then nothing more
	resp, body := u.answer(t, 10*time.Second)
	require.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
	require.Contains(t, body, "The upload arrived too slowly and was stopped")
	require.Equal(t, stored{}, storedFor(t, pool, s.User.ID))
}

func TestTricklingUploadIsCutAtItsDeadline(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	addr := slowServer(t, pool, nil, slowTimeouts())
	s := authtest.NewSession(t, pool, "trickle-"+uuid.NewString()+"@example.com")

	// Never idle for BodyIdle, but far slower than the 1 s + 2,000 bytes at 1 KiB/s the
	// whole body may take.
	u := startRawUpload(t, addr, s, sampleLines(t, 10)[:2000])
	start := time.Now()
	go func() {
		for _, b := range u.rest {
			if _, err := u.conn.Write([]byte{b}); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond) // the client's pace
		}
	}()
	resp, body := u.answer(t, 15*time.Second)
	require.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
	require.Contains(t, body, "The upload arrived too slowly")
	require.Less(t, time.Since(start), 5*time.Second, "cut near its deadline, not when the client gave up")
	require.Equal(t, stored{}, storedFor(t, pool, s.User.ID))
}

func TestRequestHeadersMustArriveInTime(t *testing.T) {
	t.Parallel()
	addr := slowServer(t, dbtest.Pool(t), nil, slowTimeouts())
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: %s\r\n", addr) // and no end of the headers
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	_, err = io.ReadAll(conn)
	require.NoError(t, err, "the server closes the connection (EOF) before the client's deadline")
}

func TestConcurrentUploadsPerUserAreLimited(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	addr := slowServer(t, pool, nil, web.Timeouts{})
	s := authtest.NewSession(t, pool, "busy-"+uuid.NewString()+"@example.com")
	file := sampleLines(t, 10)

	// A probe is an upload with no file: with a free slot it is refused for having no
	// file (and gives the slot back), without one for the limit.
	probe := func(c *authtest.Client) *http.Response {
		return upload(t, c, titlePart("probe"))
	}
	user := &authtest.Client{HTTP: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		BaseURL: "http://" + addr, User: s.User, CSRFToken: s.CSRFToken}
	user.HTTP.Jar = jarWith(t, user.BaseURL, s.Cookie)
	var resp *http.Response
	first, second := slowUploadsHoldingSlots(t, addr, s, file, 30*time.Second, 20*time.Millisecond, func() bool {
		resp = probe(user)
		return resp.StatusCode == http.StatusTooManyRequests
	})
	require.Contains(t, authtest.Body(t, resp), "You already have 2 uploads in progress. Wait until one of them has finished")

	other := authtest.SignIn(t, pool, "http://"+addr, "other-"+uuid.NewString()+"@example.com")
	require.Equal(t, http.StatusUnprocessableEntity, probe(other).StatusCode, "another user is not limited")

	_, err := second.conn.Write(second.rest) // the second upload completes
	require.NoError(t, err)
	answer, _ := second.answer(t, 30*time.Second)
	require.Equal(t, http.StatusSeeOther, answer.StatusCode)
	require.Eventually(t, func() bool { return probe(user).StatusCode == http.StatusUnprocessableEntity },
		30*time.Second, 20*time.Millisecond, "a finished upload gives its slot back")
	first.conn.Close()
}

// Uploads run on the bulk pool: however many COPY at once, the main pool's page reads
// and session lookups never wait for a connection.
func TestUploadsTakeNoConnectionOfThePages(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.Isolated(t)
	bulk, err := db.OpenBulk(context.Background(), pool)
	require.NoError(t, err)
	t.Cleanup(bulk.Close)
	addr := slowServer(t, pool, bulk, web.Timeouts{})
	base := "http://" + addr
	warmPool(t, pool)

	file := bytes.Repeat(readSample(t), 3)
	reader := authtest.SignIn(t, pool, base, "reader-"+uuid.NewString()+"@example.com")
	waited := pool.Stat().EmptyAcquireWaitTime()
	var wg sync.WaitGroup
	uploaders := make([]*authtest.Client, 6)
	for i := range uploaders {
		uploaders[i] = authtest.SignIn(t, pool, base, fmt.Sprintf("bulk-%d-%s@example.com", i, uuid.NewString()))
	}
	codes := make([]int, len(uploaders))
	for i, c := range uploaders {
		wg.Go(func() {
			resp := upload(t, c, filePart("big.jsonl", file))
			codes[i] = resp.StatusCode
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	pages := 0
	for polling := true; polling; pages++ {
		select {
		case <-done:
			polling = false
		default:
		}
		resp := reader.Get(t, "/tasks")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		authtest.Body(t, resp)
	}
	for i, code := range codes {
		require.Equal(t, http.StatusSeeOther, code, "upload %d", i)
	}
	require.Positive(t, pages)
	// On the main pool the pages waited 1.6 s for a connection behind the uploads; the
	// bound leaves room for a busy machine's scheduling, not for that.
	require.Less(t, pool.Stat().EmptyAcquireWaitTime()-waited, 500*time.Millisecond,
		"while 6 uploads ran, requests waited for a connection of the main pool")
}

// sampleLines is the sample's first n conversations.
func sampleLines(t *testing.T, n int) []byte {
	t.Helper()
	lines := bytes.SplitAfter(readSample(t), []byte("\n"))
	return bytes.Join(lines[:n], nil)
}

// warmPool opens every connection of pool, so waits counted afterwards are waits for a
// connection in use, not for one being opened.
func warmPool(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	var conns []*pgxpool.Conn
	for range pool.Config().MaxConns {
		c, err := pool.Acquire(context.Background())
		require.NoError(t, err)
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Release()
	}
}

func jarWith(t *testing.T, base string, c *http.Cookie) http.CookieJar {
	t.Helper()
	jar := authtest.Anonymous(t, base).HTTP.Jar
	u, err := http.NewRequest(http.MethodGet, base, strings.NewReader(""))
	require.NoError(t, err)
	jar.SetCookies(u.URL, []*http.Cookie{c})
	return jar
}
