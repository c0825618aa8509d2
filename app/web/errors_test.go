package web_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
)

// browserGet asks for a page the way a browser's address bar does.
func browserGet(t *testing.T, c *authtest.Client, path string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.BaseURL+path, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return c.Send(t, req)
}

// A browser gets a 404 inside the site's frame, with the way back; another user's task
// reads exactly like a missing one; a missing conversation of one's own task is named.
func TestNotFoundIsAPageForBrowsers(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	taskID := insertTask(t, b.pool, b.alice.User.ID)

	missing := browserGet(t, b.alice, "/tasks/"+uuid.NewString())
	require.Equal(t, http.StatusNotFound, missing.StatusCode)
	require.Contains(t, missing.Header.Get("Content-Type"), "text/html")
	page := parse(t, missing)
	require.Equal(t, 1, testid(page, "current-user").Length(), "the header is there")
	require.Equal(t, "/tasks", testid(page, "error-back").AttrOr("href", ""))
	require.Contains(t, testid(page, "error-back").Text(), "Your diagnoses")
	want := testid(page, "error-message").Text()
	require.Contains(t, want, "no such diagnosis")

	others := parse(t, browserGet(t, b.bob, "/tasks/"+taskID))
	require.Equal(t, want, testid(others, "error-message").Text(), "another user's task is told apart from nothing")
	others = parse(t, browserGet(t, b.bob, "/tasks/"+taskID+"/conversations/9"))
	require.Equal(t, want, testid(others, "error-message").Text())

	conv := browserGet(t, b.alice, "/tasks/"+taskID+"/conversations/9")
	require.Equal(t, http.StatusNotFound, conv.StatusCode)
	require.Equal(t, "There is no conversation 9 in this diagnosis.", testid(parse(t, conv), "error-message").Text())

	for _, path := range []string{"/no-such-page", "/index.php", "/tasks/" + taskID + "/no/such/page"} {
		unknown := browserGet(t, b.alice, path)
		require.Equal(t, http.StatusNotFound, unknown.StatusCode, path)
		doc := parse(t, unknown)
		require.Equal(t, 1, testid(doc, "error-page").Length(), "%s gets the site's 404 page", path)
		require.Contains(t, testid(doc, "error-message").Text(), "There is no page at this address", path)
	}
}

// The icon is served to anyone, signed in or not, where browsers look for it, and
// every page links it, so no page logs a 404 for it.
func TestFaviconIsServed(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	anonymous := authtest.Anonymous(t, b.url)
	for _, path := range []string{"/favicon.ico", "/static/favicon.svg"} {
		resp := anonymous.Get(t, path)
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		require.NotEmpty(t, authtest.Body(t, resp), path)
	}
	require.Equal(t, "image/x-icon", anonymous.Get(t, "/favicon.ico").Header.Get("Content-Type"))
	page := parse(t, browserGet(t, b.alice, "/tasks"))
	require.Equal(t, "/static/favicon.svg", page.Find(`link[rel="icon"]`).AttrOr("href", ""))
}

// htmx, downloads and clients that do not ask for HTML keep a short plain answer.
func TestErrorsStayPlainForMachines(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	missing := "/tasks/" + uuid.NewString()
	for name, resp := range map[string]*http.Response{
		"htmx":     browserGet(t, b.alice, missing+"/progress", "HX-Request", "true"),
		"download": browserGet(t, b.alice, missing+"/report.json"),
		"csv":      browserGet(t, b.alice, missing+"/actions.csv"),
		"no html":  b.alice.Get(t, missing),
	} {
		require.Equal(t, http.StatusNotFound, resp.StatusCode, name)
		require.Contains(t, resp.Header.Get("Content-Type"), "text/plain", name)
		require.Equal(t, "There is no such diagnosis, or it belongs to someone else.", authtest.Body(t, resp), name)
	}
}
