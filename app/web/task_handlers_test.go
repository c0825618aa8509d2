package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/report/reporttest"
)

func TestTaskPageAndDownloadsAgree(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	task := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Title: "航空客服 March"})
	base := "/tasks/" + task.ID.String()

	resp := b.alice.Get(t, base)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	page := parse(t, resp)
	require.Equal(t, "航空客服 March", testid(page, "task-title").Text())
	require.Zero(t, page.Find("[hx-trigger]").Length(), "a finished task does not poll")
	var pageRanks, pageTitles []string
	testid(page, "action").Each(func(_ int, s *goquery.Selection) {
		pageRanks = append(pageRanks, s.AttrOr("data-rank", ""))
		pageTitles = append(pageTitles, s.Find(`[data-testid="action-title"]`).Text())
	})

	resp = b.alice.Get(t, base+"/report.json")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	short := task.ID.String()[:8]
	require.Equal(t, `attachment; filename="march-`+short+`-report.json"; filename*=UTF-8''%E8%88%AA%E7%A9%BA%E5%AE%A2%E6%9C%8D-march-`+short+`-report.json`,
		resp.Header.Get("Content-Disposition"))
	var r report.Report
	require.NoError(t, json.Unmarshal([]byte(authtest.Body(t, resp)), &r))
	require.Equal(t, 1, r.SchemaVersion)
	var jsonRanks, jsonTitles []string
	for _, a := range r.Actions {
		jsonRanks = append(jsonRanks, strconv.Itoa(a.Rank))
		jsonTitles = append(jsonTitles, a.Title)
	}
	require.Equal(t, pageRanks, jsonRanks, "the page and report.json show the same ranks")
	require.Equal(t, pageTitles, jsonTitles)
	require.Equal(t, strconv.Itoa(r.Population.Analysed), testid(page, "stat-analysed").Find("b").Text())
	require.Equal(t, strconv.Itoa(r.Reliability.Isolated), testid(page, "isolated").Text())
	require.Equal(t, len(r.Clusters), testid(page, "cluster").Length())

	for name, ct := range map[string]string{
		"actions.csv": "text/csv; charset=utf-8", "findings.csv": "text/csv; charset=utf-8", "report.md": "text/markdown; charset=utf-8",
	} {
		resp := b.alice.Get(t, base+"/"+name)
		require.Equal(t, http.StatusOK, resp.StatusCode, name)
		require.Equal(t, ct, resp.Header.Get("Content-Type"), name)
		require.Contains(t, resp.Header.Get("Content-Disposition"), `filename="march-`+short+`-`+name+`"`)
		body := authtest.Body(t, resp)
		switch name {
		case "actions.csv":
			require.Len(t, strings.Split(strings.TrimSpace(body), "\n1,")[1:], 1)
		case "report.md":
			for _, rank := range pageRanks {
				require.Contains(t, body, "### "+rank+". ")
			}
			require.Contains(t, body, ": `"+reporttest.XSS+"`", "a hostile quote is a code span, shown as text")
			require.NotContains(t, strings.ReplaceAll(body, "`"+reporttest.XSS+"`", ""), "<script>", "other uploaded markup is escaped in Markdown")
		}
	}

	resp = b.alice.Get(t, base+"/conversations/1")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	conv := parse(t, resp)
	require.Equal(t, 5, testid(conv, "turn").Length())
	require.Equal(t, "turn-2", conv.Find(".turn.evidence").First().AttrOr("id", ""))
	require.Equal(t, reporttest.XSS, conv.Find(".turn.evidence mark").First().Text(), "the hostile quote is text")
	require.Zero(t, conv.Find("script:not([src])").Length())
}

func TestMalformedTaskAddressesAreNotFound(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	id := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{}).ID.String()
	for _, path := range []string{"/tasks/not-a-uuid", "/tasks/not-a-uuid/report.json", "/tasks/" + id + "/conversations/0",
		"/tasks/" + id + "/conversations/99", "/tasks/" + id + "/conversations/x"} {
		require.Equal(t, http.StatusNotFound, b.alice.Get(t, path).StatusCode, path)
	}
}

func TestProgressPollsUntilTerminalThenSwapsInResults(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	task := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Status: "running"})
	base := "/tasks/" + task.ID.String()

	page := parse(t, b.alice.Get(t, base))
	require.Equal(t, "every 2s", testid(page, "task-progress").AttrOr("hx-trigger", ""))
	require.Contains(t, testid(page, "downloads").Text(), "Download what is done so far", "a file downloaded now is not the whole report")

	resp := htmx(t, b.alice, http.MethodGet, base+"/progress")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Empty(t, resp.Header.Get("HX-Retarget"))
	frag := parse(t, resp)
	require.Equal(t, "every 2s", testid(frag, "task-progress").AttrOr("hx-trigger", ""))
	require.Contains(t, testid(frag, "progress-count").Text(), "5 of 6")
	require.Zero(t, testid(frag, "task-page").Length(), "a fragment, not a page")

	row := parseCell(t, htmx(t, b.alice, http.MethodGet, base+"/progress?view=row"))
	require.Equal(t, "every 2s", testid(row, "task-status").AttrOr("hx-trigger", ""))

	var running report.Report
	require.NoError(t, json.Unmarshal([]byte(authtest.Body(t, b.alice.Get(t, base+"/report.json"))), &running))
	require.EqualValues(t, "running", running.Task.Status, "report.json is there while the task runs, with its status")
	require.False(t, running.Task.Terminal)

	_, err := b.pool.Exec(t.Context(), `UPDATE analysis_task SET status = 'completed', finished_at = now() WHERE id = $1`, task.ID)
	require.NoError(t, err)

	resp = htmx(t, b.alice, http.MethodGet, base+"/progress")
	require.Equal(t, "#task-page", resp.Header.Get("HX-Retarget"))
	require.Equal(t, "outerHTML", resp.Header.Get("HX-Reswap"))
	done := parse(t, resp)
	require.Zero(t, done.Find("[hx-trigger]").Length(), "the finished body stops polling")
	require.Equal(t, "completed", testid(done, "task-page").AttrOr("data-status", ""))
	require.Equal(t, 2, testid(done, "action").Length(), "the results appear")
	require.NotContains(t, testid(done, "downloads").Text(), "so far")
	cleared := done.Find(`#flash[hx-swap-oob="true"]`)
	require.Equal(t, 1, cleared.Length(), "the flash above the page is cleared with it")
	require.Empty(t, cleared.Text())

	row = parseCell(t, htmx(t, b.alice, http.MethodGet, base+"/progress?view=row"))
	require.Zero(t, row.Find("[hx-trigger]").Length())
	require.Equal(t, "Completed", testid(row, "status-badge").Text())
}

func TestCancelRerunAndDelete(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	pending := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Status: "pending"})
	base := "/tasks/" + pending.ID.String()

	resp := b.alice.PostForm(t, base+"/cancel", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "without confirm=yes, a page asks first")
	require.Equal(t, 1, testid(parse(t, resp), "cancel-confirm").Length())
	require.Equal(t, "pending", testid(parse(t, b.alice.Get(t, base)), "task-page").AttrOr("data-status", ""), "nothing canceled yet")
	resp = b.alice.PostForm(t, base+"/cancel", url.Values{"confirm": {"yes"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, base, resp.Header.Get("Location"))
	page := parse(t, b.alice.Get(t, base))
	require.Equal(t, "canceled", testid(page, "task-page").AttrOr("data-status", ""))
	require.Equal(t, "The diagnosis is canceled.", testid(page, "flash").Text())

	resp = b.alice.PostForm(t, base+"/rerun", nil)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	newURL := resp.Header.Get("Location")
	require.NotEqual(t, base, newURL)
	page = parse(t, b.alice.Get(t, newURL))
	require.Equal(t, "pending", testid(page, "task-page").AttrOr("data-status", ""))
	require.Contains(t, testid(page, "flash").Text(), "same 6 conversations")
	require.Equal(t, "every 2s", testid(page, "task-progress").AttrOr("hx-trigger", ""))
	var copied int
	require.NoError(t, b.pool.QueryRow(t.Context(), `SELECT count(*) FROM task_conversation WHERE task_id = $1`,
		strings.TrimPrefix(newURL, "/tasks/")).Scan(&copied))
	require.Equal(t, 6, copied)

	resp = b.alice.PostForm(t, base+"/delete", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "without confirm=yes, a page asks first")
	require.Equal(t, 1, testid(parse(t, resp), "delete-confirm").Length())
	require.Equal(t, http.StatusOK, b.alice.Get(t, base).StatusCode, "nothing deleted yet")
	resp = b.alice.PostForm(t, base+"/delete", url.Values{"confirm": {"yes"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/tasks", resp.Header.Get("Location"))
	require.Equal(t, http.StatusNotFound, b.alice.Get(t, base).StatusCode)

	resp = htmx(t, b.alice, http.MethodDelete, newURL)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "/tasks", resp.Header.Get("HX-Redirect"))
	require.Equal(t, http.StatusNotFound, b.alice.Get(t, newURL).StatusCode)

	resp = b.alice.Do(t, http.MethodPost, newURL+"/rerun", nil, "")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// TestCancelFromHTMXGoesBackToThePage: the button's request, sent by htmx after its
// dialog, cancels and sends the browser back to the whole task page.
func TestCancelFromHTMXGoesBackToThePage(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	task := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Status: "running"})
	base := "/tasks/" + task.ID.String()
	form := testid(parse(t, b.alice.Get(t, base)), "cancel").Closest("form")
	require.Equal(t, base+"/cancel", form.AttrOr("hx-post", ""))
	require.Contains(t, form.AttrOr("hx-confirm", ""), "Cancel this diagnosis?", "it asks like delete does")
	resp := htmx(t, b.alice, http.MethodPost, base+"/cancel")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, base, resp.Header.Get("HX-Redirect"))
	require.Contains(t, testid(parse(t, b.alice.Get(t, base)), "flash").Text(), "Cancel requested")
}

func TestStateChangesNeedTheCSRFToken(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	task := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Status: "pending"})
	req, err := http.NewRequest(http.MethodPost, b.url+"/tasks/"+task.ID.String()+"/cancel", nil)
	require.NoError(t, err)
	resp := b.alice.Send(t, req)
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	page := parse(t, b.alice.Get(t, "/tasks/"+task.ID.String()))
	require.Equal(t, "pending", testid(page, "task-page").AttrOr("data-status", ""))
}

func TestTaskListPagesNewestFirst(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	resp := b.alice.Get(t, "/tasks")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 1, testid(parse(t, resp), "empty-state").Length())

	_, err := b.pool.Exec(t.Context(), `INSERT INTO analysis_task (owner_user_id, title, status, finished_at, created_at, conversation_count)
		SELECT $1, 'Task ' || i, 'completed', now(), now() - i * interval '1 minute', i FROM generate_series(1, 30) i`, b.alice.User.ID)
	require.NoError(t, err)
	reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Title: "Newest", Status: "running"})

	first := parse(t, b.alice.Get(t, "/tasks"))
	rows := testid(first, "task-row")
	require.Equal(t, 25, rows.Length())
	require.Equal(t, "Newest", rows.Eq(0).Find(`[data-testid="task-link"]`).Text())
	require.Equal(t, "Task 1", rows.Eq(1).Find(`[data-testid="task-link"]`).Text())
	require.Equal(t, 1, first.Find("[hx-trigger]").Length(), "only the running row polls")
	older := testid(first, "older").AttrOr("href", "")
	require.True(t, strings.HasPrefix(older, "/tasks?before="), older)

	second := parse(t, b.alice.Get(t, older))
	rows = testid(second, "task-row")
	require.Equal(t, 6, rows.Length())
	require.Equal(t, "Task 25", rows.Eq(0).Find(`[data-testid="task-link"]`).Text())
	require.Zero(t, testid(second, "older").Length())
	require.Equal(t, 1, testid(second, "newest").Length())

	require.Equal(t, 1, testid(parse(t, b.bob.Get(t, "/tasks")), "empty-state").Length(), "bob sees none of alice's tasks")
	require.Equal(t, http.StatusBadRequest, b.alice.Get(t, "/tasks?before=garbage").StatusCode)
}
