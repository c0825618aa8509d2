package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// apiTaskBody is what the tests read of a task answer.
type apiTaskBody struct {
	ID            string            `json:"id"`
	Title         string            `json:"title"`
	Status        string            `json:"status"`
	Terminal      bool              `json:"terminal"`
	Conversations int               `json:"conversations"`
	URL           string            `json:"url"`
	HTMLURL       string            `json:"html_url"`
	Downloads     map[string]string `json:"downloads"`
	Upload        struct {
		Format        string `json:"format"`
		Conversations int    `json:"conversations"`
	} `json:"upload"`
}

type apiPageBody struct {
	Tasks      []apiTaskBody `json:"tasks"`
	NextCursor *string       `json:"next_cursor"`
	Next       *string       `json:"next"`
}

// TestAPITwoOwners has Alice upload through the API with her token, then walks every
// registered /api/v1/tasks/:id route with Bob's token and Alice's task id: each is a
// 404 with a JSON error, Bob's list does not show the task, and the task is unchanged.
// Alice's own token reads, cancels and deletes it. Every answer is checked against
// the OpenAPI document.
func TestAPITwoOwners(t *testing.T) {
	t.Parallel()
	b := setupAPI(t, nil)
	alice, bob := b.user(t, "alice"), b.user(t, "bob")

	status, body := b.uploadAPI(t, alice.api, titlePart("Weekly export"), filePart("airline-100.jsonl", readSample(t)))
	require.Equal(t, http.StatusCreated, status, "%s", body)
	created := decode[apiTaskBody](t, body)
	require.Equal(t, "Weekly export", created.Title)
	require.Equal(t, "pending", created.Status)
	require.Equal(t, 100, created.Conversations)
	require.Equal(t, 100, created.Upload.Conversations)
	require.Equal(t, "openai-jsonl", created.Upload.Format)
	require.True(t, strings.HasSuffix(created.URL, "/api/v1/tasks/"+created.ID), created.URL)
	require.True(t, strings.HasSuffix(created.HTMLURL, "/tasks/"+created.ID), created.HTMLURL)
	before := snapshot(t, b.pool, created.ID, alice.browser.User.ID, bob.browser.User.ID)

	_, body = b.call(t, alice.api, http.MethodGet, "/api/v1/tasks", "/api/v1/tasks")
	require.Len(t, decode[apiPageBody](t, body).Tasks, 1, "Alice lists her task")
	_, body = b.call(t, bob.api, http.MethodGet, "/api/v1/tasks", "/api/v1/tasks")
	require.Empty(t, decode[apiPageBody](t, body).Tasks, "Bob's list is his own")

	var walked []string
	for _, r := range b.server.Routes() {
		if !strings.HasPrefix(r.Path, "/api/v1/tasks/:id") || strings.HasPrefix(r.Method, "echo_") {
			continue
		}
		walked = append(walked, r.Method+" "+r.Path)
		path := strings.ReplaceAll(r.Path, ":id", created.ID)
		if strings.HasSuffix(r.Path, "/compare.json") {
			path += "?baseline=" + uuid.NewString() // without one it is a 400 for anyone
		}
		status, body := b.call(t, bob.api, r.Method, r.Path, path)
		require.Equal(t, http.StatusNotFound, status, "Bob: %s %s", r.Method, path)
		require.Contains(t, decode[apiErr](t, body).Error, "belongs to someone else")
		if r.Method == http.MethodGet && !strings.HasSuffix(r.Path, "/compare.json") {
			status, body := b.call(t, alice.api, r.Method, r.Path, path)
			require.Equal(t, http.StatusOK, status, "Alice: GET %s: %s", path, body)
		}
	}
	require.Subset(t, walked, []string{
		"GET /api/v1/tasks/:id", "POST /api/v1/tasks/:id/cancel", "DELETE /api/v1/tasks/:id",
		"GET /api/v1/tasks/:id/report.json", "GET /api/v1/tasks/:id/actions.csv",
		"GET /api/v1/tasks/:id/findings.csv", "GET /api/v1/tasks/:id/report.md", "GET /api/v1/tasks/:id/compare.json",
	})
	require.Equal(t, before, snapshot(t, b.pool, created.ID, alice.browser.User.ID, bob.browser.User.ID), "Bob changed nothing")

	for _, bad := range []string{"not-a-uuid", "00000000-0000-0000-0000-000000000000"} {
		status, _ := b.call(t, alice.api, http.MethodGet, "/api/v1/tasks/:id", "/api/v1/tasks/"+bad)
		require.Equal(t, http.StatusNotFound, status, bad)
	}

	status, body = b.call(t, alice.api, http.MethodPost, "/api/v1/tasks/:id/cancel", "/api/v1/tasks/"+created.ID+"/cancel")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "canceled", decode[apiTaskBody](t, body).Status, "a pending task is canceled at once")
	status, _ = b.call(t, alice.api, http.MethodDelete, "/api/v1/tasks/:id", "/api/v1/tasks/"+created.ID)
	require.Equal(t, http.StatusNoContent, status)
	status, _ = b.call(t, alice.api, http.MethodGet, "/api/v1/tasks/:id", "/api/v1/tasks/"+created.ID)
	require.Equal(t, http.StatusNotFound, status, "deleted")
	require.Equal(t, stored{}, storedFor(t, b.pool, alice.browser.User.ID), "nothing of it is left")
}
