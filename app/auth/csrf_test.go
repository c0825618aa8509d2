package auth

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func multipartBody(t *testing.T, fields ...[2]string) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		require.NoError(t, w.WriteField(f[0], f[1]))
	}
	fw, err := w.CreateFormFile("file", "big.jsonl")
	require.NoError(t, err)
	_, err = fw.Write(bytes.Repeat([]byte(`{"messages":[]}`+"\n"), 2000))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return &buf, w.FormDataContentType()
}

func TestMultipartTokenIsReadFromTheFirstFieldAndTheBodyIsKept(t *testing.T) {
	t.Parallel()
	body, contentType := multipartBody(t, [2]string{CSRFField, "tok"}, [2]string{"title", "Support bot"})
	original := body.String()
	r := httptest.NewRequest("POST", "/tasks", strings.NewReader(original))
	r.Header.Set("Content-Type", contentType)

	require.Equal(t, "tok", formToken(r))
	rest, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	require.Equal(t, original, string(rest), "the handler reads the whole body, from its first byte")
}

func TestMultipartTokenMustComeFirst(t *testing.T) {
	t.Parallel()
	body, contentType := multipartBody(t, [2]string{"title", "Support bot"}, [2]string{CSRFField, "tok"})
	original := body.String()
	r := httptest.NewRequest("POST", "/tasks", strings.NewReader(original))
	r.Header.Set("Content-Type", contentType)

	require.Empty(t, formToken(r))
	rest, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	require.Equal(t, original, string(rest))
}

// A body with an endless preamble before its first part is not buffered: the token
// is looked for only near the start, and the rest of the body is left unread.
func TestMultipartPreambleIsNotBuffered(t *testing.T) {
	t.Parallel()
	body, contentType := multipartBody(t, [2]string{CSRFField, "tok"})
	preamble := &countingReader{r: io.LimitReader(repeatReader('a'), 1<<30)}
	r := httptest.NewRequest("POST", "/logout", io.MultiReader(preamble, body))
	r.Header.Set("Content-Type", contentType)

	require.Empty(t, formToken(r))
	require.LessOrEqual(t, preamble.n, int64(firstPartLimit+64<<10), "read only the head of the body")
}

type repeatReader byte

func (b repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestCSRFTokenDependsOnTheSession(t *testing.T) {
	t.Parallel()
	a, b := newToken(), newToken()
	require.Equal(t, CSRFTokenFor(a), CSRFTokenFor(a))
	require.NotEqual(t, CSRFTokenFor(a), CSRFTokenFor(b))
	require.NotContains(t, CSRFTokenFor(a), a)
}
