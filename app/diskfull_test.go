package main

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// smallDisk mounts a tmpfs of 1 MiB for the test, unmounted when it ends: a real
// file system that fills up. Mounting needs root, which CI has.
func smallDisk(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		require.NotEqual(t, "true", os.Getenv("CI"), "CI runs as root, which the full disk needs")
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput()
	require.NoError(t, err, "mount a tmpfs: %s", out)
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	return dir
}

// TestAnUploadOnAFullDiskIsA503AndLeavesNothing uploads a file larger than the room
// left in TMPDIR: the answer is 503 with the sentence, no task is stored and the
// temporary directory is empty again.
func TestAnUploadOnAFullDiskIsA503AndLeavesNothing(t *testing.T) {
	t.Parallel()
	tmp := smallDisk(t)
	pool, dbURL := dbtest.Isolated(t)
	o := setupOps(t, pool, dbURL, 0)
	p := o.start(t, "TMPDIR="+tmp)

	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	require.NoError(t, w.WriteField(auth.CSRFField, o.session.CSRFToken))
	part, err := w.CreateFormFile("file", "big.jsonl")
	require.NoError(t, err)
	_, err = part.Write(bytes.Repeat(sampleSlice(t, 0, 100), 4))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	require.Greater(t, body.Len(), 2<<20)
	req, err := http.NewRequest(http.MethodPost, "http://"+p.Addr+"/tasks", &body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Accept", "text/html")
	req.AddCookie(o.session.Cookie)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	text, _ := io.ReadAll(resp.Body)
	resp.Body.Close()

	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%s", text)
	require.Contains(t, string(text), "The server is out of disk space, so nothing was stored.")
	var tasks int
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT count(*) FROM analysis_task`).Scan(&tasks))
	require.Zero(t, tasks)
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, left, "the temporary file is gone")
}
