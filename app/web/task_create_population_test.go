package web_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// An upload that cannot give the diagnosis MIN_CONVERSATIONS (5) conversations after
// the quality checks that need no model is refused at upload, with the funnel's reasons,
// and nothing is stored.
func TestUploadWithTooFewUsableConversationsIsRefused(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	base := "http://" + slowServer(t, pool, nil, web.Timeouts{})
	lines := bytes.SplitAfter(readSample(t), []byte("\n"))
	noReply := []byte(`{"id":"no-reply","messages":[{"role":"user","content":"Is anyone there?"}]}` + "\n")

	for _, c := range []struct {
		name     string
		file     []byte
		problems []string
		reason   string
	}{
		{"one empty conversation", noReply, []string{"Empty: no agent message (1 conversation)"},
			"The file's only conversation cannot be diagnosed (the reasons are listed), and at least 5 are needed for a diagnosis (MIN_CONVERSATIONS, set by whoever runs Checkup)."},
		{"three conversations", bytes.Join(lines[:3], nil), nil,
			"The file holds only 3 conversations, and at least 5 are needed for a diagnosis (MIN_CONVERSATIONS, set by whoever runs Checkup)."},
		{"duplicates and an empty one", bytes.Join([][]byte{lines[0], lines[0], lines[0], lines[0], noReply, lines[1]}, nil),
			[]string{"Empty: no agent message (1 conversation)", "Duplicate: same content as an earlier conversation (3 conversations)"},
			"Only 2 of the file's 6 conversations can be diagnosed (the others are set aside for the reasons listed), and at least 5 are needed for a diagnosis (MIN_CONVERSATIONS, set by whoever runs Checkup)."},
	} {
		user := authtest.SignIn(t, pool, base, "few-"+uuid.NewString()+"@example.com")
		resp := upload(t, user, titlePart("Too few"), filePart("few.jsonl", c.file))
		require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, c.name)
		doc := parse(t, resp)
		require.Contains(t, doc.Find(`[data-testid="upload-reason"]`).Text(), c.reason, c.name)
		var problems []string
		doc.Find(`[data-testid="upload-problem"]`).Each(func(_ int, s *goquery.Selection) { problems = append(problems, s.Text()) })
		require.Equal(t, c.problems, problems, c.name)
		require.Equal(t, "Too few", doc.Find(`input[name="title"]`).AttrOr("value", ""), "%s: the title is kept", c.name)
		require.Equal(t, stored{}, storedFor(t, pool, user.User.ID), "%s: nothing stored", c.name)

		// The API refuses it with the page's words.
		api := authtest.NewAPIClient(base, authtest.NewToken(t, pool, user.User, "few"))
		body, contentType := multipartBody(t, filePart("few.jsonl", c.file))
		resp = api.Do(t, http.MethodPost, "/api/v1/tasks", body, contentType)
		require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, c.name)
		var refused struct {
			Error    string   `json:"error"`
			Problems []string `json:"problems"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&refused), c.name)
		require.Contains(t, refused.Error, c.reason, c.name)
		require.Equal(t, c.problems, refused.Problems, c.name)
	}

	// Five usable conversations are enough, whatever else the file holds.
	user := authtest.SignIn(t, pool, base, "enough-"+uuid.NewString()+"@example.com")
	file := bytes.Join(append([][]byte{lines[0], noReply}, lines[:5]...), nil)
	resp := upload(t, user, filePart("enough.jsonl", file))
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, authtest.Body(t, resp))
	require.Equal(t, 7, storedFor(t, pool, user.User.ID).Conversations, "every conversation is stored; the pipeline's funnel sets the others aside")
}
