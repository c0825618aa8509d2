package web_test

import (
	"bytes"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// notText is what no field may hold, with a part of the sentence that refuses it.
var notText = map[string]string{"a\x00b": "NUL character", "a\xffb": "not valid UTF-8"}

// hostileFields are the fields sent to every route: free text and the names.
var hostileFields = []string{"q", "reason", "title", "name"}

// TestEveryRouteRefusesFieldsThatAreNotText walks every route of the route table,
// pages and API, uploads included, sending each hostile value in each field, in the
// query and in the form: every answer is a 422 with the sentence that says what is
// wrong, never a 500, and nothing changes.
func TestEveryRouteRefusesFieldsThatAreNotText(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	cfg, _, err := config.Load(func(string) string { return "" })
	require.NoError(t, err)
	srv := web.New(web.Deps{Config: cfg, Pool: pool, Logger: slog.New(slog.DiscardHandler)})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	alice := authtest.SignIn(t, pool, ts.URL, "alice.text-walk@example.com")
	api := authtest.NewAPIClient(ts.URL, authtest.NewToken(t, pool, alice.User, "walk"))
	taskID := insertTask(t, pool, alice.User.ID)
	before := snapshot(t, pool, taskID, alice.User.ID)
	contract := loadContract(t, ts.URL)

	walked := 0
	for _, r := range walkableRoutes(srv.Routes()) {
		path := strings.NewReplacer(":id", taskID, ":seq", "1", ":cluster", "0", ":token", "1", ":rule", "1", ":provider", "local", "*", "x").Replace(r.Path)
		for _, field := range hostileFields {
			for value, want := range notText {
				for _, in := range []string{"query", "form"} {
					if in == "form" && r.Method != http.MethodPost {
						continue // Go reads no form from the body of a GET or a DELETE
					}
					if in == "form" && isUpload(r) && field != "title" {
						continue // an upload reads its title and file and skips other parts unread
					}
					resp := sendHostile(t, alice, api, r, path, in, field, value)
					var body string
					if strings.HasPrefix(r.Path, "/api/") {
						body = string(contract.check(t, r.Method, r.Path, resp)) // the answer is documented
					} else {
						body = authtest.Body(t, resp)
					}
					require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, "%s %s, %s %q in the %s: %s", r.Method, path, field, value, in, body)
					require.Contains(t, body, want, "%s %s, %s %q in the %s", r.Method, path, field, value, in)
					walked++
				}
			}
		}
	}
	require.Greater(t, walked, 500)
	require.Equal(t, before, snapshot(t, pool, taskID, alice.User.ID), "nothing changed")
}

// walkableRoutes is every route of the table a person or a script can call.
func walkableRoutes(routes []*echo.Route) []*echo.Route {
	var out []*echo.Route
	for _, r := range routes {
		if !strings.HasPrefix(r.Method, "echo_") && !strings.HasPrefix(r.Path, "/static") && r.Path != "/*" && r.Path != "/api/*" {
			out = append(out, r)
		}
	}
	return out
}

func isUpload(r *echo.Route) bool {
	return r.Method == http.MethodPost && (r.Path == "/tasks" || r.Path == "/api/v1/tasks")
}

// sendHostile sends field=value to the route, in its query or its form, as the page
// or the script would (an upload as a multipart form with a file).
func sendHostile(t *testing.T, c *authtest.Client, api *authtest.APIClient, r *echo.Route, path, in, field, value string) *http.Response {
	t.Helper()
	values := url.Values{field: {value}}
	if in == "query" {
		path += "?" + values.Encode()
		values = url.Values{}
	}
	body, contentType := strings.NewReader(values.Encode()), "application/x-www-form-urlencoded"
	var multi bytes.Buffer
	if isUpload(r) {
		w := multipart.NewWriter(&multi)
		if !strings.HasPrefix(path, "/api/") {
			require.NoError(t, w.WriteField(auth.CSRFField, c.CSRFToken))
		}
		for k, vs := range values {
			require.NoError(t, w.WriteField(k, vs[0]))
		}
		part, err := w.CreateFormFile("file", "export.jsonl")
		require.NoError(t, err)
		_, err = part.Write([]byte(`{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}` + "\n"))
		require.NoError(t, err)
		require.NoError(t, w.Close())
		body, contentType = strings.NewReader(multi.String()), w.FormDataContentType()
	}
	if strings.HasPrefix(path, "/api/") {
		return api.Do(t, r.Method, path, body, contentType)
	}
	return c.Do(t, r.Method, path, body, contentType)
}

// TestEveryStateChangingRouteNeedsTheCSRFToken walks every POST and DELETE route of
// the route table but the API's (a token, never a cookie, signs those): without the
// session's security token, or with another session's, each is a 403 that says so, and
// nothing changes.
func TestEveryStateChangingRouteNeedsTheCSRFToken(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	cfg, _, err := config.Load(func(string) string { return "" })
	require.NoError(t, err)
	srv := web.New(web.Deps{Config: cfg, Pool: pool, Logger: slog.New(slog.DiscardHandler)})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	alice := authtest.SignIn(t, pool, ts.URL, "alice.csrf-walk@example.com")
	other := authtest.SignIn(t, pool, ts.URL, "other.csrf-walk@example.com")
	taskID := insertTask(t, pool, alice.User.ID)
	before := snapshot(t, pool, taskID, alice.User.ID)

	walked := 0
	for _, r := range walkableRoutes(srv.Routes()) {
		if (r.Method != http.MethodPost && r.Method != http.MethodDelete) || strings.HasPrefix(r.Path, "/api/") {
			continue
		}
		path := strings.NewReplacer(":id", taskID, ":cluster", "0", ":token", "1", ":rule", "1", ":provider", "local").Replace(r.Path)
		for name, token := range map[string]string{"no token": "", "another session's token": other.CSRFToken} {
			form := url.Values{"confirm": {"yes"}, "reason": {"because"}, "name": {"walk"}}
			if token != "" {
				form.Set(auth.CSRFField, token)
			}
			req, err := http.NewRequest(r.Method, ts.URL+path, strings.NewReader(form.Encode()))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp := alice.Send(t, req)
			body := authtest.Body(t, resp)
			require.Equal(t, http.StatusForbidden, resp.StatusCode, "%s %s, %s: %s", r.Method, path, name, body)
			require.Contains(t, body, "security token is missing or out of date", "%s %s, %s", r.Method, path, name)
			walked++
		}
	}
	require.GreaterOrEqual(t, walked, 2*14, "every POST and DELETE route of the table")
	require.Equal(t, before, snapshot(t, pool, taskID, alice.User.ID), "nothing changed")
	require.Equal(t, http.StatusOK, alice.Get(t, "/tasks").StatusCode, "still signed in")
}
