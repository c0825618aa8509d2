package web_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
)

// TestFormsRefuseLargeBodies posts a token's form with 100 KiB more than it needs,
// with its length announced and chunked: each is a 413 that says why, before the form
// is parsed, and no token is made. A form under the limit still makes one.
func TestFormsRefuseLargeBodies(t *testing.T) {
	t.Parallel()
	b := setupAPI(t, nil)
	alice := authtest.SignIn(t, b.pool, b.url, "form-limit-"+t.Name()+"@example.com")
	form := url.Values{"name": {"large"}, "junk": {strings.Repeat("x", 100<<10)}, auth.CSRFField: {alice.CSRFToken}}.Encode()
	const contentType = "application/x-www-form-urlencoded"

	announced := alice.Do(t, http.MethodPost, "/settings/tokens", strings.NewReader(form), contentType)
	chunked := alice.Do(t, http.MethodPost, "/settings/tokens", io.MultiReader(strings.NewReader(form)), contentType)

	for name, resp := range map[string]*http.Response{"announced": announced, "chunked": chunked} {
		require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, name)
		require.Contains(t, authtest.Body(t, resp), "larger than the 64 KiB a form may send", name)
	}
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM api_token WHERE owner_user_id = $1`, alice.User.ID).Scan(&n))
	require.Zero(t, n, "a refused form made no token")

	small := url.Values{"name": {"small"}, "junk": {strings.Repeat("x", 32<<10)}}
	require.Equal(t, http.StatusCreated, alice.PostForm(t, "/settings/tokens", small).StatusCode)
}
