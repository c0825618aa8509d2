package web_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/views/pages"
)

// TestUploadPage is the page a PM meets first: a plain multipart form with the CSRF
// field first, every accepted format with its example, and the limits in force.
func TestUploadPage(t *testing.T) {
	t.Parallel()
	b := setupUpload(t, dbtest.Pool(t), 50, ingest.Limits{MaxConversations: 1234})
	c := b.user(t)

	resp := c.Get(t, "/tasks/new")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	doc := parse(t, resp)
	form := testid(doc, "upload-form")
	require.Equal(t, "post", form.AttrOr("method", ""))
	require.Equal(t, "/tasks", form.AttrOr("action", ""))
	require.Equal(t, "multipart/form-data", form.AttrOr("enctype", ""))
	first := form.Find("input").First()
	require.Equal(t, auth.CSRFField, first.AttrOr("name", ""), "the CSRF field comes first in a multipart form")
	require.Equal(t, c.CSRFToken, first.AttrOr("value", ""))
	require.Equal(t, "title", testid(doc, "upload-title").AttrOr("name", ""))
	require.Equal(t, "file", testid(doc, "upload-file").AttrOr("name", ""))
	require.Zero(t, testid(doc, "upload-errors").Length(), "a fresh form shows no errors")

	require.Equal(t, len(pages.UploadFormats()), testid(doc, "upload-format").Length())
	limits := testid(doc, "upload-limits").Text()
	require.Contains(t, limits, "up to 50 MB as uploaded")
	require.Contains(t, limits, "Up to 1,234 conversations per file, 2,000 messages per conversation")
	sample := c.Get(t, testid(doc, "upload-sample").AttrOr("href", ""))
	require.Equal(t, http.StatusOK, sample.StatusCode, "the offered sample downloads")
	require.Equal(t, "application/gzip", sample.Header.Get("Content-Type"))

	anonymous := authtest.Anonymous(t, b.url)
	resp = anonymous.Get(t, "/tasks/new")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/login?next=%2Ftasks%2Fnew", resp.Header.Get("Location"))
}
