package web_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// largeReportTask inserts a waiting task of owner's whose report.json (about 14 MB:
// 30,000 conversations with long ids) is far more than the sockets between a server
// and a client that stopped reading can hold, and returns its id.
func largeReportTask(t *testing.T, pool *pgxpool.Pool, owner int64) string {
	t.Helper()
	ctx := context.Background()
	const n = 30_000
	var id string
	require.NoError(t, pool.QueryRow(ctx,
		`INSERT INTO analysis_task (owner_user_id, title, conversation_count) VALUES ($1, 'large', $2) RETURNING id::text`,
		owner, n).Scan(&id))
	_, err := pool.Exec(ctx, `INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, message_count)
		SELECT $1, $2, g, 'conversation-' || g || '-' || repeat('x', 400), '[]', 0 FROM generate_series(1, $3::int) AS g`, id, owner, n)
	require.NoError(t, err)
	return id
}

// stalledDownload asks for path on a connection whose receive buffer is 4 KiB and
// reads nothing: the server's writes stop once the sockets are full.
func stalledDownload(t *testing.T, addr string, s authtest.Session, path string) *bufio.Reader {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4<<10) })
		if err != nil {
			return err
		}
		return serr
	}}
	conn, err := d.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	_, err = fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nCookie: %s=%s\r\n\r\n", path, addr, s.Cookie.Name, s.Cookie.Value)
	require.NoError(t, err)
	return bufio.NewReader(conn)
}

// openSnapshots counts the transactions open on the test's database but this
// query's own: the snapshots of the downloads being sent.
func openSnapshots(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
		WHERE xact_start IS NOT NULL AND pid <> pg_backend_pid() AND datname = current_database()`).Scan(&n))
	return n
}

// downloadServer is the real http.Server on a database of its own, whose open
// transactions are the server's, and on a pool of four connections, so two downloads
// may be sent at once and one user may hold one of them.
func downloadServer(t *testing.T, timeouts web.Timeouts) (string, *pgxpool.Pool) {
	t.Helper()
	base, _ := dbtest.Isolated(t)
	cfg := base.Config().Copy()
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return slowServer(t, pool, nil, timeouts), pool
}

// TestADownloadThatIsNotReadIsCut: a client that stops reading report.json is cut off
// once a write has waited BodyIdle, so it does not hold its download's connection and
// snapshot; what it reads afterwards is a broken download, not the whole file.
func TestADownloadThatIsNotReadIsCut(t *testing.T) {
	t.Parallel()
	addr, pool := downloadServer(t, slowTimeouts())
	alice := authtest.NewSession(t, pool, "stalled-download-"+uuid.NewString()+"@example.com")
	id := largeReportTask(t, pool, alice.User.ID)

	in := stalledDownload(t, addr, alice, "/tasks/"+id+"/report.json")
	resp, err := http.ReadResponse(in, nil) // the head only: the file is being sent
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Eventually(t, func() bool { return openSnapshots(t, pool) == 0 }, 10*time.Second, 10*time.Millisecond, "the download is cut")
	body, err := io.ReadAll(resp.Body)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF, "the connection is cut before the end")
	require.False(t, strings.HasSuffix(string(body), "}\n"))
}

// TestOneUsersDownloadsLeaveSlotsForOthers: Alice's two downloads that she stopped
// reading take only her share of the two slots, so Bob's download is sent meanwhile.
func TestOneUsersDownloadsLeaveSlotsForOthers(t *testing.T) {
	t.Parallel()
	addr, pool := downloadServer(t, web.Timeouts{})
	alice := authtest.NewSession(t, pool, "slow-downloads-"+uuid.NewString()+"@example.com")
	bob := authtest.NewSession(t, pool, "other-download-"+uuid.NewString()+"@example.com")
	id := largeReportTask(t, pool, alice.User.ID)
	for range 2 {
		stalledDownload(t, addr, alice, "/tasks/"+id+"/report.json")
	}
	require.Eventually(t, func() bool { return openSnapshots(t, pool) == 1 }, 10*time.Second, 10*time.Millisecond, "Alice's first download is being sent")

	other := largeReportTask(t, pool, bob.User.ID)
	client := &http.Client{Timeout: 20 * time.Second}
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/tasks/"+other+"/report.json", nil)
	require.NoError(t, err)
	req.AddCookie(bob.Cookie)
	resp, err := client.Do(req)
	require.NoError(t, err, "Bob's download is not kept waiting behind Alice's")
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(string(body), "}\n"), "the whole file")
	require.Equal(t, []string{"chunked"}, resp.TransferEncoding, "a cut download cannot look whole")
}
