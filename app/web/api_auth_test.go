package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
)

// TestAPIRefusesWithoutAValidToken sends API requests with no token, a mistyped one,
// another scheme, and a revoked one: each is a 401 with a JSON error and a Bearer
// challenge. A signed-in browser's session cookie, even with its CSRF token, never
// authorises the API: an upload so sent is refused and stores nothing.
func TestAPIRefusesWithoutAValidToken(t *testing.T) {
	t.Parallel()
	b := setupAPI(t, nil)
	alice := b.user(t, "alice")

	for name, header := range map[string]string{
		"no token":      "",
		"unknown token": "Bearer ck_" + strings.Repeat("A", 43),
		"not a ck_ one": "Bearer " + alice.api.Token[len("ck_"):],
		"basic auth":    "Basic YWxpY2U6c2VjcmV0",
		"empty bearer":  "Bearer ",
	} {
		req, err := http.NewRequest(http.MethodGet, b.url+"/api/v1/tasks", nil)
		require.NoError(t, err)
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, name)
		require.Contains(t, resp.Header.Get("WWW-Authenticate"), `Bearer realm="checkup"`, name)
		body := decode[apiErr](t, b.contract.check(t, http.MethodGet, "/api/v1/tasks", resp))
		require.Contains(t, body.Error, "/settings/tokens", name)
	}

	// The browser, signed in, with its cookie and CSRF token: not the API's credential.
	resp := alice.browser.Get(t, "/api/v1/tasks")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "a session cookie is ignored on /api")
	b.contract.check(t, http.MethodGet, "/api/v1/tasks", resp)
	body, contentType := multipartBody(t, titlePart("through the cookie"), filePart("a.jsonl", readSample(t)))
	resp = alice.browser.Do(t, http.MethodPost, "/api/v1/tasks", body, contentType)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "an upload with the cookie and the CSRF header")
	b.contract.check(t, http.MethodPost, "/api/v1/tasks", resp)
	require.Equal(t, stored{}, storedFor(t, b.pool, alice.browser.User.ID), "nothing was stored")

	// A route under /api that does not exist: 401 without a token, 404 JSON with one.
	resp = authtest.NewAPIClient(b.url, "").Do(t, http.MethodGet, "/api/v1/nothing-here", nil, "")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	resp = alice.api.Do(t, http.MethodGet, "/api/v2/tasks", nil, "")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, "application/json", strings.Split(resp.Header.Get("Content-Type"), ";")[0])
	require.NotEmpty(t, decode[apiErr](t, []byte(authtest.Body(t, resp))).Error)

	// Revoked from the settings page, the token is refused on its next request.
	status, _ := b.call(t, alice.api, http.MethodGet, "/api/v1/tasks", "/api/v1/tasks")
	require.Equal(t, http.StatusOK, status)
	id := tokenIDs(t, b, alice.browser)[0]
	resp = alice.browser.PostForm(t, "/settings/tokens/"+strconv.FormatInt(id, 10)+"/revoke", url.Values{})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	resp = alice.api.Do(t, http.MethodGet, "/api/v1/tasks", nil, "")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "revoked")
	require.Contains(t, resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`)
	b.contract.check(t, http.MethodGet, "/api/v1/tasks", resp)
}

// TestAPIRateLimitIsPerTokenAndPerUser lets a token make two requests at once and one
// a minute: the third is a 429 with Retry-After and a JSON error, while another token
// of the same user still gets through, up to twice a token's requests for the user's
// tokens together; another user's token is not slowed.
func TestAPIRateLimitIsPerTokenAndPerUser(t *testing.T) {
	t.Parallel()
	b := setupAPI(t, map[string]string{"API_RATE_PER_MINUTE": "1", "API_RATE_BURST": "2"})
	alice, bob := b.user(t, "alice"), b.user(t, "bob")
	for range 2 {
		status, _ := b.call(t, alice.api, http.MethodGet, "/api/v1/tasks", "/api/v1/tasks")
		require.Equal(t, http.StatusOK, status)
	}
	resp := alice.api.Do(t, http.MethodGet, "/api/v1/tasks", nil, "")
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	wait, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	require.NoError(t, err)
	require.InDelta(t, 60, wait, 2, "one request a minute: the next one in about a minute")
	require.Contains(t, decode[apiErr](t, b.contract.check(t, http.MethodGet, "/api/v1/tasks", resp)).Error, "Too many requests")

	second := authtest.NewAPIClient(b.url, authtest.NewToken(t, b.pool, alice.browser.User, "second"))
	for range 2 {
		status, _ := b.call(t, second, http.MethodGet, "/api/v1/tasks", "/api/v1/tasks")
		require.Equal(t, http.StatusOK, status, "another token has its own bucket")
	}
	third := authtest.NewAPIClient(b.url, authtest.NewToken(t, b.pool, alice.browser.User, "third"))
	resp = third.Do(t, http.MethodGet, "/api/v1/tasks", nil, "")
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "a user's tokens together make twice a token's requests, no more")
	require.Contains(t, decode[apiErr](t, b.contract.check(t, http.MethodGet, "/api/v1/tasks", resp)).Error, "your tokens together twice that")
	status, _ := b.call(t, bob.api, http.MethodGet, "/api/v1/tasks", "/api/v1/tasks")
	require.Equal(t, http.StatusOK, status, "another user's token too")
	resp, err = http.Get(b.url + "/api/v1/openapi.json")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "the document is not rate limited")
}

// TestFailedTokenLookupsArePacedPerAddress sends made-up tokens: the first 30 from an
// address are 401s, the next a 429 with Retry-After, before any lookup.
func TestFailedTokenLookupsArePacedPerAddress(t *testing.T) {
	t.Parallel()
	b := setupAPI(t, nil)
	guess := authtest.NewAPIClient(b.url, "ck_"+strings.Repeat("x", 43))
	for i := range 30 {
		resp := guess.Do(t, http.MethodGet, "/api/v1/tasks", nil, "")
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "guess %d", i+1)
	}
	resp := guess.Do(t, http.MethodGet, "/api/v1/tasks", nil, "")
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	wait, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	require.NoError(t, err)
	require.InDelta(t, 2, wait, 1, "30 a minute: one more in about 2 s")
	require.Contains(t, decode[apiErr](t, b.contract.check(t, http.MethodGet, "/api/v1/tasks", resp)).Error, "tokens that are not valid")
}
