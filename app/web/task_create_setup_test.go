package web_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/app/web"
)

// samplePath is the sample export that ships in the repository.
var samplePath = filepath.Join("..", "..", "testdata", "airline-100.jsonl")

// uploadBundle is a real server for upload tests and the pool it stores into.
type uploadBundle struct {
	pool *pgxpool.Pool
	url  string
}

// setupUpload starts a real server on pool with the given upload limits. It takes a
// file of a single conversation (MIN_CONVERSATIONS=1): most upload tests send one or
// two, and the check of an upload's population has tests of its own.
func setupUpload(t *testing.T, pool *pgxpool.Pool, maxUploadMB int, lim ingest.Limits) uploadBundle {
	t.Helper()
	cfg, _, err := config.Load(func(k string) string { return map[string]string{"MIN_CONVERSATIONS": "1"}[k] })
	require.NoError(t, err)
	if maxUploadMB > 0 {
		cfg.MaxUploadMB = maxUploadMB
	}
	srv := web.New(web.Deps{Config: cfg, Pool: pool, Logger: slog.New(slog.DiscardHandler), Ingest: lim})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return uploadBundle{pool: pool, url: ts.URL}
}

// user signs a new user in.
func (b uploadBundle) user(t *testing.T) *authtest.Client {
	t.Helper()
	return authtest.SignIn(t, b.pool, b.url, "uploader-"+uuid.NewString()+"@example.com")
}

// part is one field of a multipart form; file marks a file part, whose filename may be
// empty, as a browser sends it when no file was chosen.
type part struct {
	name, filename string
	file           bool
	content        []byte
}

func titlePart(title string) part { return part{name: "title", content: []byte(title)} }

func filePart(filename string, content []byte) part {
	return part{name: "file", filename: filename, file: true, content: content}
}

// multipartBody writes parts in the order given, as a browser sends a form.
func multipartBody(t *testing.T, parts ...part) (*bytes.Buffer, string) {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for _, p := range parts {
		var err error
		var dst io.Writer
		if p.file {
			dst, err = w.CreateFormFile(p.name, p.filename)
		} else {
			dst, err = w.CreateFormField(p.name)
		}
		require.NoError(t, err)
		_, err = dst.Write(p.content)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return &body, w.FormDataContentType()
}

// upload posts the form as the upload page's plain form does: the _csrf field first,
// then parts, and no CSRF header.
func upload(t *testing.T, c *authtest.Client, parts ...part) *http.Response {
	t.Helper()
	all := append([]part{{name: auth.CSRFField, content: []byte(c.CSRFToken)}}, parts...)
	body, contentType := multipartBody(t, all...)
	req, err := http.NewRequest(http.MethodPost, c.BaseURL+"/tasks", body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", contentType)
	return c.Send(t, req)
}

// stored counts what owner has in the tables an upload writes.
type stored struct{ Tasks, Conversations, Warnings int }

func storedFor(t *testing.T, pool *pgxpool.Pool, owner int64) stored {
	t.Helper()
	var s stored
	require.NoError(t, pool.QueryRow(context.Background(), `
		SELECT (SELECT count(*) FROM analysis_task WHERE owner_user_id = $1 AND kind = 'diagnosis'),
		       (SELECT count(*) FROM task_conversation WHERE owner_user_id = $1),
		       (SELECT count(*) FROM task_warning WHERE owner_user_id = $1)`, owner).
		Scan(&s.Tasks, &s.Conversations, &s.Warnings))
	return s
}

func readSample(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(samplePath)
	require.NoError(t, err)
	return b
}

func gzipped(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, err := w.Write(b)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return buf.Bytes()
}
