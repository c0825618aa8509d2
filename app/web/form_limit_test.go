package web_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// TestFormsRefuseLargeBodies posts a token's form with 100 KiB more than it needs,
// with its length announced and chunked: each is a 413 that says why, before the form
// is parsed, and no token is made. A form under the limit still makes one.
func TestFormsRefuseLargeBodies(t *testing.T) {
	t.Parallel()
	b := setupAPI(t, nil)
	alice := authtest.SignIn(t, b.pool, b.url, "form-limit-"+uuid.NewString()+"@example.com")
	form := url.Values{"name": {"large"}, "junk": {strings.Repeat("x", 100<<10)}, auth.CSRFField: {alice.CSRFToken}}.Encode()
	const contentType = "application/x-www-form-urlencoded"

	announced := alice.Do(t, http.MethodPost, "/settings/tokens", strings.NewReader(form), contentType)
	chunked := alice.Do(t, http.MethodPost, "/settings/tokens", io.MultiReader(strings.NewReader(form)), contentType)
	var parts bytes.Buffer
	mw := multipart.NewWriter(&parts)
	require.NoError(t, mw.WriteField(auth.CSRFField, alice.CSRFToken))
	require.NoError(t, mw.WriteField("name", "large"))
	file, err := mw.CreateFormFile("junk", "junk.bin")
	require.NoError(t, err)
	_, err = file.Write(bytes.Repeat([]byte("x"), 100<<10))
	require.NoError(t, err)
	require.NoError(t, mw.Close())
	multi := alice.Do(t, http.MethodPost, "/settings/tokens", &parts, mw.FormDataContentType())

	for name, resp := range map[string]*http.Response{"announced": announced, "chunked": chunked, "multipart": multi} {
		require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, name)
		require.Contains(t, authtest.Body(t, resp), "larger than the 64 KiB a form may send", name)
	}
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM api_token WHERE owner_user_id = $1`, alice.User.ID).Scan(&n))
	require.Zero(t, n, "a refused form made no token")

	small := url.Values{"name": {"small"}, "junk": {strings.Repeat("x", 32<<10)}}
	require.Equal(t, http.StatusCreated, alice.PostForm(t, "/settings/tokens", small).StatusCode)
}

// TestAStalledFormIsCut: a form whose body stops coming is answered 408 once it has sent
// nothing for BodyIdle, as an upload is, and changes nothing.
func TestAStalledFormIsCut(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	addr := slowServer(t, pool, nil, slowTimeouts())
	s := authtest.NewSession(t, pool, "stalled-form-"+uuid.NewString()+"@example.com")
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	body := url.Values{auth.CSRFField: {s.CSRFToken}, "name": {"slow"}}.Encode()
	_, err = fmt.Fprintf(conn, "POST /settings/tokens HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n%s: %s\r\nCookie: %s=%s\r\n\r\n%s",
		addr, len(body)+10, auth.CSRFHeader, s.CSRFToken, s.Cookie.Name, s.Cookie.Value, body) // 10 bytes short
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
	require.Contains(t, authtest.Body(t, resp), "arrived too slowly")
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM api_token WHERE owner_user_id = $1`, s.User.ID).Scan(&n))
	require.Zero(t, n)
}
