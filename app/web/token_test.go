package web_test

import (
	"context"
	"crypto/sha256"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
)

// tokenIDs reads the ids of the user's tokens from the tokens page, newest first.
func tokenIDs(t *testing.T, b apiBundle, c *authtest.Client) []int64 {
	t.Helper()
	resp := c.Get(t, "/settings/tokens")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var ids []int64
	testid(parse(t, resp), "token-row").Each(func(_ int, s *goquery.Selection) {
		id, err := strconv.ParseInt(s.AttrOr("data-token-id", ""), 10, 64)
		require.NoError(t, err)
		ids = append(ids, id)
	})
	return ids
}

// TestTokensPageShowsANewTokenOnce makes a token on /settings/tokens: the answer shows
// it once (ck_ and 43 characters), the table keeps only its SHA-256, the list shows
// its name and hint but never the token again, and a use of it shows as its last use.
func TestTokensPageShowsANewTokenOnce(t *testing.T) {
	t.Parallel()
	b := setupAPI(t, nil)
	alice := authtest.SignIn(t, b.pool, b.url, "tokens-"+t.Name()+"@example.com")

	doc := parse(t, alice.Get(t, "/settings/tokens"))
	require.Equal(t, 1, testid(doc, "no-tokens").Length())
	require.Equal(t, 1, testid(doc, "nav-tokens").Length(), "the header links the page")

	resp := alice.PostForm(t, "/settings/tokens", url.Values{"name": {"  nightly CI  "}})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Equal(t, "no-store", resp.Header.Get("Cache-Control"), "no cache keeps the token")
	doc = parse(t, resp)
	token := testid(doc, "new-token").Text()
	require.Regexp(t, `^ck_[A-Za-z0-9_-]{43}$`, token)
	require.Contains(t, testid(doc, "new-token-panel").Text(), "nightly CI", "the name, trimmed")
	require.Contains(t, testid(doc, "new-token-example").Text(), "Authorization: Bearer "+token)

	var hash []byte
	var hint, name string
	require.NoError(t, b.pool.QueryRow(context.Background(),
		`SELECT token_hash, hint, name FROM api_token WHERE owner_user_id = $1`, alice.User.ID).Scan(&hash, &hint, &name))
	sum := sha256.Sum256([]byte(token))
	require.Equal(t, sum[:], hash, "only the SHA-256 is stored")
	require.Equal(t, token[:7], hint)
	require.Equal(t, "nightly CI", name)

	body := authtest.Body(t, alice.Get(t, "/settings/tokens"))
	require.NotContains(t, body, token, "the token is never shown again")
	require.Contains(t, body, hint+"…")
	require.Contains(t, body, "never", "not used yet")

	api := authtest.NewAPIClient(b.url, token)
	require.Equal(t, http.StatusOK, api.Do(t, http.MethodGet, "/api/v1/tasks", nil, "").StatusCode)
	doc = parse(t, alice.Get(t, "/settings/tokens"))
	require.Equal(t, "just now", strings.TrimSpace(testid(doc, "token-last-used").Text()), "its use is shown")
	require.Equal(t, "just now", testid(doc, "token-created").Text(), "a token made under a minute ago, not \"0 s ago\"")
}

// TestTokensPageRefusesBadNames sends names a token cannot have: each is a 422 with
// the reason next to the form and the name kept, and no token is made. Without the
// CSRF token the form is refused before anything is read.
func TestTokensPageRefusesBadNames(t *testing.T) {
	t.Parallel()
	b := setupAPI(t, nil)
	alice := authtest.SignIn(t, b.pool, b.url, "token-names-"+t.Name()+"@example.com")
	for name, want := range map[string]string{
		"":                       "Give the token a name",
		"   ":                    "Give the token a name",
		strings.Repeat("n", 101): "101 characters long",
		"bell\a":                 "cannot be shown",
		"evil\u202etxt.exe":      "cannot be shown",
	} {
		resp := alice.PostForm(t, "/settings/tokens", url.Values{"name": {name}})
		require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, "%q", name)
		doc := parse(t, resp)
		require.Contains(t, testid(doc, "token-problem").Text(), want, "%q", name)
		require.Equal(t, 0, testid(doc, "new-token").Length())
	}
	forged, err := http.NewRequest(http.MethodPost, b.url+"/settings/tokens", strings.NewReader("name=forged"))
	require.NoError(t, err)
	forged.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp := alice.Send(t, forged)
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "no CSRF token")
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM api_token WHERE owner_user_id = $1`, alice.User.ID).Scan(&n))
	require.Zero(t, n, "no refused name made a token")
}

// TestTokensAreTheirOwners: Bob neither sees Alice's token nor revokes it (404,
// and it still works); Alice revokes it, with htmx too, and it stops working.
func TestTokensAreTheirOwners(t *testing.T) {
	t.Parallel()
	b := setupAPI(t, nil)
	alice, bob := b.user(t, "alice"), b.user(t, "bob")
	ids := tokenIDs(t, b, alice.browser)
	require.Len(t, ids, 1)
	require.NotContains(t, tokenIDs(t, b, bob.browser), ids[0])
	revoke := "/settings/tokens/" + strconv.FormatInt(ids[0], 10) + "/revoke"

	resp := bob.browser.PostForm(t, revoke, url.Values{})
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Contains(t, authtest.Body(t, resp), "no such token")
	require.Equal(t, http.StatusOK, alice.api.Do(t, http.MethodGet, "/api/v1/tasks", nil, "").StatusCode, "still works")
	for _, bad := range []string{"/settings/tokens/x/revoke", "/settings/tokens/99999999999/revoke"} {
		require.Equal(t, http.StatusNotFound, alice.browser.PostForm(t, bad, url.Values{}).StatusCode, bad)
	}

	resp = htmx(t, alice.browser, http.MethodPost, revoke)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "/settings/tokens", resp.Header.Get("HX-Redirect"))
	require.Equal(t, http.StatusUnauthorized, alice.api.Do(t, http.MethodGet, "/api/v1/tasks", nil, "").StatusCode, "revoked")
	require.Contains(t, authtest.Body(t, alice.browser.Get(t, "/settings/tokens")), "is revoked", "the page says so")
	require.Equal(t, http.StatusNotFound, alice.browser.PostForm(t, revoke, url.Values{}).StatusCode, "revoking twice")
}
