package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// TestAPIRefusesBadInputNamingTheField sends every kind of bad input: each answer is
// a 4xx JSON error that names the field and says why, and nothing is stored.
func TestAPIRefusesBadInputNamingTheField(t *testing.T) {
	t.Parallel()
	b := setupAPI(t, map[string]string{"MAX_UPLOAD_MB": "1"})
	alice := b.user(t, "alice")

	for _, c := range []struct {
		query, field, says string
	}{
		{"limit=0", "limit", "from 1 to 100"},
		{"limit=101", "limit", "from 1 to 100"},
		{"limit=ten", "limit", "from 1 to 100"},
		{"before=yesterday", "before", "next_cursor"},
	} {
		status, body := b.call(t, alice.api, http.MethodGet, "/api/v1/tasks", "/api/v1/tasks?"+c.query)
		require.Equal(t, http.StatusBadRequest, status, c.query)
		e := decode[apiErr](t, body)
		require.Equal(t, c.field, e.Field, c.query)
		require.Contains(t, e.Error, c.says, c.query)
	}

	big := []byte(strings.Repeat(`{"messages":[{"role":"user","content":"hello"},{"role":"assistant","content":"hi"}]}`+"\n", 15_000))
	for _, c := range []struct {
		name   string
		parts  []part
		status int
		field  string
		says   string
	}{
		{"no file", []part{titlePart("only a title")}, http.StatusUnprocessableEntity, "file", "No file"},
		{"an empty unnamed file", []part{filePart("", nil)}, http.StatusUnprocessableEntity, "file", "No file"},
		{"a title too long", []part{titlePart(strings.Repeat("t", 201)), filePart("a.jsonl", readSample(t))}, http.StatusUnprocessableEntity, "title", "201 characters"},
		{"a title too long after the file", []part{filePart("a.jsonl", firstLines(readSample(t), 10)), titlePart(strings.Repeat("t", 201))}, http.StatusUnprocessableEntity, "title", "201 characters"},
		{"a file over MAX_UPLOAD_MB", []part{filePart("big.jsonl", big)}, http.StatusRequestEntityTooLarge, "file", "1 MB upload limit"},
		{"lines that are not conversations", []part{filePart("bad.jsonl", []byte("{\"messages\": [}\nnot json\n"))}, http.StatusUnprocessableEntity, "file", ""},
	} {
		status, body := b.uploadAPI(t, alice.api, c.parts...)
		require.Equal(t, c.status, status, "%s: %s", c.name, body)
		e := decode[apiErr](t, body)
		require.Equal(t, c.field, e.Field, c.name)
		require.Contains(t, e.Error, c.says, c.name)
		if c.name == "lines that are not conversations" {
			require.NotEmpty(t, e.Problems, "the problems by line")
			require.True(t, strings.HasPrefix(e.Problems[0], "line 1"), e.Problems[0])
		}
	}

	resp := alice.api.Do(t, http.MethodPost, "/api/v1/tasks", strings.NewReader(`{"file": "..."}`), "application/json")
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	require.Equal(t, "file", decode[apiErr](t, b.contract.check(t, http.MethodPost, "/api/v1/tasks", resp)).Field, "not multipart")
	require.Equal(t, stored{}, storedFor(t, b.pool, alice.browser.User.ID), "nothing was stored")
}

// TestAPIListPagesByKeyset stores five tasks and reads them two at a time: newest
// first, each once, the next page in next_cursor, next and the Link header, and no
// next on the last page.
func TestAPIListPagesByKeyset(t *testing.T) {
	t.Parallel()
	b := setupAPI(t, nil)
	alice := b.user(t, "alice")
	s := store.New(b.pool)
	var want []string
	for _, title := range []string{"one", "two", "three", "four", "five"} {
		id := workertest.CreateTask(t, s, alice.browser.Owner(), store.NewTask{Title: title}, workertest.Conversations(3))
		want = append([]string{id.String()}, want...)
	}
	var got []string
	path, pages := "/api/v1/tasks?limit=2", 0
	for path != "" {
		resp := alice.api.Do(t, http.MethodGet, path, nil, "")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		link := resp.Header.Get("Link")
		page := decode[apiPageBody](t, b.contract.check(t, http.MethodGet, "/api/v1/tasks", resp))
		pages++
		for _, task := range page.Tasks {
			got = append(got, task.ID)
		}
		path = ""
		if page.Next != nil {
			require.NotNil(t, page.NextCursor)
			require.Contains(t, *page.Next, "before=")
			require.Equal(t, "<"+*page.Next+`>; rel="next"`, link)
			require.True(t, strings.HasPrefix(*page.Next, b.url+"/api/v1/tasks?"), "next is absolute on BASE_URL: %s", *page.Next)
			path = strings.TrimPrefix(*page.Next, b.url)
		} else {
			require.Empty(t, link, "no next page")
			require.Nil(t, page.NextCursor)
		}
		require.LessOrEqual(t, pages, 3)
	}
	require.Equal(t, want, got, "newest first, each once")
	require.Equal(t, 3, pages)
}

// firstLines is the first n lines of a JSONL file.
func firstLines(b []byte, n int) []byte {
	lines := strings.SplitAfter(string(b), "\n")
	return []byte(strings.Join(lines[:min(n, len(lines))], ""))
}

// TestAPIUploadsShareTheUsersUploadLimit holds the user's two upload slots with two
// slow page uploads: an upload through the API, taking the same path, is a 429 JSON
// error, and once a slot is free it goes through.
func TestAPIUploadsShareTheUsersUploadLimit(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	addr := slowServer(t, pool, nil, web.Timeouts{})
	k := loadContract(t, "http://"+addr)
	s := authtest.NewSession(t, pool, "busy-api-"+uuid.NewString()+"@example.com")
	api := authtest.NewAPIClient("http://"+addr, authtest.NewToken(t, pool, s.User, "ci"))
	file := sampleLines(t, 10)
	probe := func() (int, apiErr) {
		body, contentType := multipartBody(t, titlePart("probe"))
		resp := api.Do(t, http.MethodPost, "/api/v1/tasks", body, contentType)
		return resp.StatusCode, decode[apiErr](t, k.check(t, http.MethodPost, "/api/v1/tasks", resp))
	}
	// Polled at 4 a second: the token's own limit (30 at once, 2 a second after) must
	// not be what refuses the probe while the slow uploads reach their slots.
	var refused apiErr
	first, second := slowUploadsHoldingSlots(t, addr, s, file, 10*time.Second, 250*time.Millisecond, func() bool {
		var status int
		status, refused = probe()
		return status == http.StatusTooManyRequests
	})
	require.Contains(t, refused.Error, "2 uploads in progress")
	_, err := second.conn.Write(second.rest)
	require.NoError(t, err)
	answer, _ := second.answer(t, 10*time.Second)
	require.Equal(t, http.StatusSeeOther, answer.StatusCode)
	require.Eventually(t, func() bool {
		status, _ := probe()
		return status == http.StatusUnprocessableEntity // no file: the slot was free
	}, 10*time.Second, 250*time.Millisecond)
	first.conn.Close()
}
