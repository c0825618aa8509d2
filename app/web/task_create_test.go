package web_test

import (
	"bytes"
	"context"
	"github.com/checkup-dev/checkup/db/locale/localetest"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/views/pages"
)

var taskLocation = regexp.MustCompile(`^/tasks/([0-9a-f-]{36})$`)

// TestUploadStoresTheSampleForItsOwnerInOneTransaction uploads the sample through the
// running server as the page's form does, and finds its 100 conversations stored for
// the signed-in owner, written with the task by one transaction that also woke the
// workers; another user sees none of it.
func TestUploadStoresTheSampleForItsOwnerInOneTransaction(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.Isolated(t)
	b := setupUpload(t, pool, 0, ingest.Limits{})
	alice, bob := b.user(t), b.user(t)
	ctx := context.Background()
	listener, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer listener.Release()
	_, err = listener.Exec(ctx, "LISTEN checkup_tasks")
	require.NoError(t, err)

	sample := readSample(t)
	resp := upload(t, alice, titlePart(""), filePart("airline-100.jsonl", sample))
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, authtest.Body(t, resp))
	m := taskLocation.FindStringSubmatch(resp.Header.Get("Location"))
	require.NotNil(t, m, "303 to the task page, got %q", resp.Header.Get("Location"))
	id := m[1]

	var (
		owner, count, bytesStored   int64
		title, filename, format, st string
	)
	require.NoError(t, pool.QueryRow(ctx, `SELECT owner_user_id, title, source_filename, source_format, source_bytes, conversation_count, status
		FROM analysis_task WHERE id = $1`, id).Scan(&owner, &title, &filename, &format, &bytesStored, &count, &st))
	require.Equal(t, alice.User.ID, owner)
	require.Equal(t, "airline-100.jsonl", title, "an empty title falls back to the file name")
	require.Equal(t, "airline-100.jsonl", filename)
	require.Equal(t, "openai-jsonl", format)
	require.Equal(t, int64(len(sample)), bytesStored)
	require.EqualValues(t, 100, count)
	require.Equal(t, "pending", st)

	var rows, owners, messages, toolCalls, transactions int64
	require.NoError(t, pool.QueryRow(ctx, `
		SELECT count(*), count(*) FILTER (WHERE owner_user_id = $2), sum(message_count),
		       count(*) FILTER (WHERE messages::jsonb @> '[{"role": "tool"}]'),
		       (SELECT count(DISTINCT xmin::text) FROM (
		            SELECT xmin FROM analysis_task WHERE id = $1
		            UNION ALL SELECT xmin FROM task_conversation WHERE task_id = $1) x)
		FROM task_conversation WHERE task_id = $1`, id, alice.User.ID).Scan(&rows, &owners, &messages, &toolCalls, &transactions))
	require.EqualValues(t, 100, rows)
	require.EqualValues(t, 100, owners, "every conversation belongs to the uploader")
	want, err := ingest.Parse(bytes.NewReader(sample), ingest.Limits{}, nil)
	require.NoError(t, err)
	require.EqualValues(t, want.Messages, messages)
	require.Positive(t, toolCalls, "tool messages are kept")
	require.EqualValues(t, 1, transactions, "the task and its conversations were written by one transaction")
	var first string
	require.NoError(t, pool.QueryRow(ctx, `SELECT external_id FROM task_conversation WHERE task_id = $1 AND seq = 1`, id).Scan(&first))
	require.Equal(t, "airline-task00-trial0", first, "the export's ids are kept")

	waitCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	n, err := listener.Conn().WaitForNotification(waitCtx)
	require.NoError(t, err, "the creating transaction notifies the workers")
	require.Equal(t, id, n.Payload)

	page := parse(t, alice.Get(t, "/tasks/"+id))
	require.Equal(t, "Uploaded 100 conversations (OpenAI chat JSONL); the diagnosis has started. Outcome labels read from metadata.success: 69 failed, 31 succeeded, 0 without a label.", testid(page, "flash").Text())

	require.Equal(t, http.StatusNotFound, bob.Get(t, "/tasks/"+id).StatusCode)
	require.Equal(t, stored{}, storedFor(t, pool, bob.User.ID))
	require.NotContains(t, authtest.Body(t, bob.Get(t, "/tasks")), id)
}

// TestUploadingTheSameFileAgainSaysSo: a second upload of a file with the same name
// and size says when the first was and how to compare them; the first upload, another
// file, and another user's upload of the same file say nothing of it.
func TestUploadingTheSameFileAgainSaysSo(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	b := setupUpload(t, pool, 0, ingest.Limits{})
	alice, bob := b.user(t), b.user(t)
	file := sampleLines(t, 5)
	flashAfter := func(c *authtest.Client, filename string) (string, string) {
		resp := upload(t, c, filePart(filename, file))
		require.Equal(t, http.StatusSeeOther, resp.StatusCode, authtest.Body(t, resp))
		id := taskLocation.FindStringSubmatch(resp.Header.Get("Location"))[1]
		return id, testid(parse(t, c.Get(t, resp.Header.Get("Location"))), "flash").Text()
	}
	const hint = "You uploaded a file of the same name and size"

	first, msg := flashAfter(alice, "export.jsonl")
	require.NotContains(t, msg, hint)
	_, msg = flashAfter(alice, "other.jsonl")
	require.NotContains(t, msg, hint, "another name")
	_, msg = flashAfter(bob, "export.jsonl")
	require.NotContains(t, msg, hint, "another user's file")

	var uploaded time.Time
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT created_at FROM analysis_task WHERE id = $1`, first).Scan(&uploaded))
	_, msg = flashAfter(alice, "export.jsonl")
	require.Contains(t, msg, hint+" on "+localetest.English(t).Time(uploaded)+": if it held the same conversations, compare the two diagnoses once this one has finished.")
}

// TestRefusedUploadsStoreNothing is the table of bad files: each is answered with the
// form again, its message next to the form and the title kept, and the database holds
// no task, conversation or warning of the uploader afterwards.
func TestRefusedUploadsStoreNothing(t *testing.T) {
	t.Parallel()
	b := setupUpload(t, dbtest.Pool(t), 1, ingest.Limits{
		MaxDecompressedBytes: 2 << 20, MaxLineBytes: 64 << 10, MaxConversations: 30, MaxMessages: 10, MaxMessageChars: 500,
	})
	ok := `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}` + "\n"
	longTitle := strings.Repeat("é", 201)
	cases := []struct {
		name    string
		parts   []part
		status  int
		message string // in the reason or the first problem
		more    int    // the "and N more" count, when problems were cut
	}{
		{name: "no file chosen", parts: []part{titlePart("March"), filePart("", nil)},
			status: 422, message: "No file was chosen."},
		{name: "no file field", parts: []part{titlePart("March")},
			status: 422, message: "No file was chosen."},
		{name: "empty file", parts: []part{titlePart("March"), filePart("empty.jsonl", nil)},
			status: 422, message: "The file is empty"},
		{name: "unknown format", parts: []part{titlePart("March"), filePart("notes.txt", []byte("hello world\nthis is not json\n"))},
			status: 422, message: "This looks like plain text, not conversations. Checkup accepts OpenAI chat JSONL"},
		{name: "zip archive", parts: []part{titlePart("March"), filePart("export.zip", []byte("PK\x03\x04rest of a zip"))},
			status: 422, message: "zip archive"},
		{name: "invalid UTF-8", parts: []part{titlePart("March"), filePart("latin1.jsonl", []byte(ok+`{"messages": [{"role": "user", "content": "caf`+"\xe9"+`"}]}`+"\n"))},
			status: 422, message: "Line 2 is not valid UTF-8 text"},
		{name: "line too long", parts: []part{titlePart("March"), filePart("long.jsonl", []byte(ok+`{"messages": [{"role": "user", "content": "`+strings.Repeat("a", 70<<10)+`"}]}`+"\n"))},
			status: 422, message: "Line 2 is longer than the 64 KiB limit for one line."},
		{name: "too many conversations", parts: []part{titlePart("March"), filePart("many.jsonl", []byte(strings.Repeat(ok, 31)))},
			status: 422, message: "The file has more than 30 conversations"},
		{name: "too many messages", parts: []part{titlePart("March"), filePart("chatty.jsonl", []byte(`{"messages": [`+strings.Repeat(`{"role": "user", "content": "hi"},`, 10)+`{"role": "assistant", "content": "hello"}]}`))},
			status: 422, message: "has more than 10 messages"},
		{name: "message too long", parts: []part{titlePart("March"), filePart("wordy.jsonl", []byte(`{"messages": [{"role": "user", "content": "`+strings.Repeat("a", 600)+`"}]}`))},
			status: 422, message: "over the limit of 500 characters per message"},
		{name: "gzip bomb", parts: []part{titlePart("March"), filePart("bomb.jsonl.gz", gzipped(t, bytes.Repeat([]byte("\n"), 3<<20)))},
			status: 422, message: "The file is larger than the 2 MiB limit once decompressed"},
		{name: "damaged gzip", parts: []part{titlePart("March"), filePart("cut.jsonl.gz", gzipped(t, []byte(strings.Repeat(ok, 20)))[:40])},
			status: 422, message: "compressed data is damaged or cut short"},
		{name: "CSV without a role column", parts: []part{titlePart("March"), filePart("export.csv", []byte("conversation_id,who,content\nc1,user,hi\n"))},
			status: 422, message: "The CSV header has conversation_id, who, content; it needs a role column (role, speaker, from, sender, author)."},
		{name: "located problems, first 20 then the count", parts: []part{titlePart("March"), filePart("robots.jsonl", []byte(strings.Repeat(`{"messages": [{"role": "robot", "content": "hi"}]}`+"\n", 25)))},
			status: 422, message: `line 1: message 1: "role" must be one of system, developer, user, assistant, tool, function (got "robot")`, more: 5},
		{name: "a bad line after good ones", parts: []part{titlePart("March"), filePart("late.jsonl", []byte(strings.Repeat(ok, 5)+`{"messages": "no"}`+"\n"))},
			status: 422, message: "line 6:"},
		{name: "over MAX_UPLOAD_MB", parts: []part{titlePart("March"), filePart("big.jsonl", []byte(ok+strings.Repeat("\n", 3<<19)))},
			status: 413, message: "The file is larger than the 1 MB upload limit (MAX_UPLOAD_MB)."},
		{name: "title too long", parts: []part{titlePart(longTitle), filePart("ok.jsonl", []byte(ok))},
			status: 422, message: "The title is 201 characters long; keep it to 200 or fewer."},
		{name: "title too long, after the file", parts: []part{filePart("ok.jsonl", []byte(strings.Repeat(ok, 5))), titlePart(longTitle)},
			status: 422, message: "The title is 201 characters long; keep it to 200 or fewer."},
		{name: "title far longer than is read of it", parts: []part{titlePart(strings.Repeat("标题", 2500)), filePart("ok.jsonl", []byte(ok))},
			status: 422, message: "The title is 5,000 characters long; keep it to 200 or fewer."},
		{name: "language Checkup does not write", parts: []part{{name: "language", content: []byte("fr")}, filePart("ok.jsonl", []byte(strings.Repeat(ok, 5)))},
			status: 422, message: `The language is en or zh-CN, not "fr".`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := b.user(t)
			resp := upload(t, c, tc.parts...)
			require.Equal(t, tc.status, resp.StatusCode)
			doc := parse(t, resp)
			errs := testid(doc, "upload-errors")
			require.Equal(t, 1, errs.Length(), "the errors are shown")
			require.Contains(t, errs.Text(), "nothing was stored")
			title := testid(doc, "upload-title")
			if strings.HasPrefix(tc.name, "title") {
				require.Contains(t, errs.Text(), "The title was not accepted", "a title error is the title's, not the file's")
				require.NotContains(t, errs.Text(), "The file was not accepted")
				require.Equal(t, "true", title.AttrOr("aria-invalid", ""))
				require.Equal(t, "upload-reason", title.AttrOr("aria-describedby", ""))
			} else if strings.HasPrefix(tc.name, "language") {
				require.Contains(t, errs.Text(), "The language was not accepted")
				require.Equal(t, "true", testid(doc, "upload-language").AttrOr("aria-invalid", ""))
			} else {
				require.Contains(t, errs.Text(), "The file was not accepted")
				require.False(t, title.Is("[aria-invalid]"))
			}
			shown := testid(doc, "upload-reason").Text() + testid(doc, "upload-problem").First().Text()
			require.Contains(t, shown, tc.message)
			if tc.more > 0 {
				require.Equal(t, ingest.MaxProblems, testid(doc, "upload-problem").Length())
				require.Equal(t, "and 5 more", testid(doc, "upload-more").Text())
			}
			require.Equal(t, 1, testid(doc, "upload-form").Length(), "the form is shown again")
			require.Equal(t, 1, doc.Find(`[data-testid="upload-panel"] [data-testid="upload-errors"] + form`).Length(),
				"the errors are right above the form")
			for _, p := range tc.parts {
				if kept := testid(doc, "upload-title").AttrOr("value", ""); p.name == "title" && len(p.content) <= 4<<10 {
					require.Equal(t, string(p.content), kept, "the title is kept")
				} else if p.name == "title" {
					require.True(t, len(kept) > 4000 && len(kept) <= 4<<10 && strings.HasPrefix(string(p.content), kept), "the first 4 KiB of the title are kept, in whole characters")
				}
			}
			require.Equal(t, stored{}, storedFor(t, b.pool, c.User.ID))
		})
	}
}

// TestUploadWithoutCSRFTokenIsRefused: a form without the token, or with it after
// another field (the check reads only the first part), is a 403 and stores nothing.
func TestUploadWithoutCSRFTokenIsRefused(t *testing.T) {
	t.Parallel()
	b := setupUpload(t, dbtest.Pool(t), 0, ingest.Limits{})
	c := b.user(t)
	sample := readSample(t)
	for name, parts := range map[string][]part{
		"no token": {titlePart("March"), filePart("airline-100.jsonl", sample)},
		"token not first": {titlePart("March"), {name: auth.CSRFField, content: []byte(c.CSRFToken)},
			filePart("airline-100.jsonl", sample)},
		"wrong token": {{name: auth.CSRFField, content: []byte("forged")}, filePart("airline-100.jsonl", sample)},
	} {
		body, contentType := multipartBody(t, parts...)
		req, err := http.NewRequest(http.MethodPost, b.url+"/tasks", body)
		require.NoError(t, err)
		req.Header.Set("Content-Type", contentType)
		require.Equal(t, http.StatusForbidden, c.Send(t, req).StatusCode, name)
	}
	require.Equal(t, stored{}, storedFor(t, b.pool, c.User.ID))
}

// TestUploadTitle: a title typed is kept, whether the browser sends it before or after
// the file; left empty, the file name is the title.
func TestUploadTitle(t *testing.T) {
	t.Parallel()
	b := setupUpload(t, dbtest.Pool(t), 0, ingest.Limits{})
	file := []byte(pages.UploadFormats()[0].Example)
	for _, tc := range []struct {
		name  string
		parts []part
		want  string
	}{
		{"before the file", []part{titlePart("  Support bot, 三月  "), filePart("export.jsonl", file)}, "Support bot, 三月"},
		{"after the file", []part{filePart("export.jsonl", file), titlePart("Sent last")}, "Sent last"},
		{"empty", []part{titlePart(""), filePart("export.jsonl", file)}, "export.jsonl"},
		{"absent", []part{filePart("export.jsonl", file)}, "export.jsonl"},
		{"no title, no file name", []part{{name: "file", file: true, content: file}}, "Untitled upload"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := b.user(t)
			resp := upload(t, c, tc.parts...)
			require.Equal(t, http.StatusSeeOther, resp.StatusCode, authtest.Body(t, resp))
			var title string
			require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT title FROM analysis_task WHERE owner_user_id = $1`, c.User.ID).Scan(&title))
			require.Equal(t, tc.want, title)
		})
	}
}

// TestUploadLanguage: the language a model writes the diagnosis in is the one chosen,
// else the owner's (here their browser's), and the form offers it selected.
func TestUploadLanguage(t *testing.T) {
	t.Parallel()
	b := setupUpload(t, dbtest.Pool(t), 0, ingest.Limits{})
	file := []byte(strings.Repeat(pages.UploadFormats()[0].Example+"\n", 5))
	for _, tc := range []struct {
		name, chosen, browser, want string
	}{
		{"chosen", "zh-CN", "en", "zh-CN"},
		{"chosen English by a Chinese browser", "en", "zh-CN", "en"},
		{"the owner's", "", "zh-CN,zh;q=0.9", "zh-CN"},
		{"English by default", "", "", "en"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := b.user(t)
			parts := []part{{name: auth.CSRFField, content: []byte(c.CSRFToken)}, filePart("export.jsonl", file)}
			if tc.chosen != "" {
				parts = append(parts, part{name: "language", content: []byte(tc.chosen)})
			}
			body, contentType := multipartBody(t, parts...)
			req, err := http.NewRequest(http.MethodPost, c.BaseURL+"/tasks", body)
			require.NoError(t, err)
			req.Header.Set("Content-Type", contentType)
			req.Header.Set("Accept-Language", tc.browser)
			resp := c.Send(t, req)
			require.Equal(t, http.StatusSeeOther, resp.StatusCode, authtest.Body(t, resp))
			var language string
			require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT language FROM analysis_task WHERE owner_user_id = $1`, c.User.ID).Scan(&language))
			require.Equal(t, tc.want, language)
		})
	}
	c := b.user(t)
	req, err := http.NewRequest(http.MethodGet, c.BaseURL+"/tasks/new", nil)
	require.NoError(t, err)
	req.Header.Set("Accept-Language", "zh-CN")
	doc := parse(t, c.Send(t, req))
	require.Equal(t, "zh-CN", doc.Find(`[data-testid="upload-language"] option[selected]`).AttrOr("value", ""))
}

// TestEveryExampleOnTheUploadPageIsAccepted uploads each format's example as shown,
// plain and gzip-compressed, and finds its conversations stored with its format.
func TestEveryExampleOnTheUploadPageIsAccepted(t *testing.T) {
	t.Parallel()
	b := setupUpload(t, dbtest.Pool(t), 0, ingest.Limits{})
	for _, f := range pages.UploadFormats() {
		for _, compressed := range []bool{false, true} {
			name := string(f.Family)
			if compressed {
				name += ".gz"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				c := b.user(t)
				content, suffix := []byte(f.Example), ""
				if compressed {
					content, suffix = gzipped(t, content), "+gzip"
				}
				resp := upload(t, c, filePart("example", content))
				require.Equal(t, http.StatusSeeOther, resp.StatusCode, authtest.Body(t, resp))
				parsed, err := ingest.Parse(strings.NewReader(f.Example), ingest.Limits{}, nil)
				require.NoError(t, err)
				var format string
				var conversations int
				require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT t.source_format, (SELECT count(*) FROM task_conversation c WHERE c.task_id = t.id)
					FROM analysis_task t WHERE t.owner_user_id = $1`, c.User.ID).Scan(&format, &conversations))
				require.Equal(t, parsed.Format+suffix, format)
				read, listed := transcript.FormatNamed(parsed.Format)
				require.True(t, listed, "%s is one of transcript.Formats", parsed.Format)
				require.Equal(t, f.Family, read.Family, "the example is read as a format of its entry")
				require.Equal(t, parsed.Conversations, conversations)
			})
		}
	}
}

// TestDuplicateIdsAreRenamedAndWarned: a repeated conversation id gets a suffix, and
// the warning is stored with the task and shown on its page.
func TestDuplicateIdsAreRenamedAndWarned(t *testing.T) {
	t.Parallel()
	b := setupUpload(t, dbtest.Pool(t), 0, ingest.Limits{})
	c := b.user(t)
	conv := `{"id": "same", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}` + "\n"
	resp := upload(t, c, filePart("dups.jsonl", []byte(strings.Repeat(conv, 3))))
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, authtest.Body(t, resp))
	id := taskLocation.FindStringSubmatch(resp.Header.Get("Location"))[1]

	rows, err := b.pool.Query(context.Background(), `SELECT external_id FROM task_conversation WHERE task_id = $1 ORDER BY seq`, id)
	require.NoError(t, err)
	var ids []string
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		ids = append(ids, s)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"same", "same-2", "same-3"}, ids)

	var stage, scope, message string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT stage, scope, message FROM task_warning WHERE task_id = $1 ORDER BY id LIMIT 1`, id).
		Scan(&stage, &scope, &message))
	require.Equal(t, "upload", stage)
	require.Equal(t, "line 2", scope)
	require.Equal(t, `duplicate conversation id "same" renamed to "same-2"`, message)
	require.Equal(t, stored{Tasks: 1, Conversations: 3, Warnings: 2}, storedFor(t, b.pool, c.User.ID))

	page := parse(t, c.Get(t, "/tasks/"+id))
	require.Contains(t, testid(page, "flash").Text(), "2 changes were made to the file on the way in")
	require.Contains(t, page.Text(), `duplicate conversation id "same" renamed to "same-3"`)
}

// TestEmptyConversationIsKeptAndWarned: a session with no messages is stored, with a
// warning, instead of refusing the file.
func TestEmptyConversationIsKeptAndWarned(t *testing.T) {
	t.Parallel()
	b := setupUpload(t, dbtest.Pool(t), 0, ingest.Limits{})
	c := b.user(t)
	conv := `{"id": "full", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}` + "\n"
	resp := upload(t, c, filePart("sessions.jsonl", []byte(conv+`{"id": "idle", "messages": []}`+"\n")))
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, authtest.Body(t, resp))
	id := taskLocation.FindStringSubmatch(resp.Header.Get("Location"))[1]

	var scope, message string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT scope, message FROM task_warning WHERE task_id = $1 ORDER BY id LIMIT 1`, id).
		Scan(&scope, &message))
	require.Equal(t, "line 2", scope)
	require.Equal(t, `conversation "idle" has no messages; it is kept and set aside by the quality checks`, message)
	require.Equal(t, stored{Tasks: 1, Conversations: 2, Warnings: 1}, storedFor(t, b.pool, c.User.ID))
}

// TestUploadWithHTMX: htmx gets the form's panel alone with the errors (status 422),
// and on success a redirect it follows itself.
func TestUploadWithHTMX(t *testing.T) {
	t.Parallel()
	b := setupUpload(t, dbtest.Pool(t), 0, ingest.Limits{})
	c := b.user(t)
	send := func(parts ...part) *http.Response {
		body, contentType := multipartBody(t, parts...)
		req, err := http.NewRequest(http.MethodPost, b.url+"/tasks", body)
		require.NoError(t, err)
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("HX-Request", "true")
		req.Header.Set(auth.CSRFHeader, c.CSRFToken)
		return c.Send(t, req)
	}

	resp := send(titlePart("Kept"), filePart("bad.jsonl", []byte("{\"messages\": 3}\n")))
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	html := authtest.Body(t, resp)
	require.NotContains(t, html, "<html", "a fragment, not a page")
	require.Contains(t, html, `data-testid="upload-errors"`)
	require.Contains(t, html, `value="Kept"`)

	resp = send(filePart("ok.jsonl", []byte(pages.UploadFormats()[0].Example)))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Regexp(t, taskLocation, resp.Header.Get("HX-Redirect"))
	require.Equal(t, 1, storedFor(t, b.pool, c.User.ID).Tasks)
}

// TestUploadNotMultipart: a form sent url-encoded cannot carry a file.
func TestUploadNotMultipart(t *testing.T) {
	t.Parallel()
	b := setupUpload(t, dbtest.Pool(t), 0, ingest.Limits{})
	c := b.user(t)
	resp := c.PostForm(t, "/tasks", url.Values{"title": {"March"}})
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	require.Contains(t, testid(parse(t, resp), "upload-reason").Text(), "multipart/form-data")
	require.Equal(t, stored{}, storedFor(t, b.pool, c.User.ID))
}
