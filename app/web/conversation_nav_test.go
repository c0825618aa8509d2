package web_test

import (
	"net/http"
	"net/url"
	"path"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/report"
)

// TestAConversationLeadsBackToItsListAndOn opens the first conversation of a list from
// its row and follows "Next in this list" to the end: the conversations come in the
// list's order, across its pages and ties, each page leads back to the list as it was
// filtered and sorted, at a page that starts with it, and the last one says it is the
// last. A conversation opened from
// elsewhere has no list to lead to; one whose list query is not the list's leads back
// to all conversations.
func TestAConversationLeadsBackToItsListAndOn(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	id := b.diagnose(t, b.alice, "Support, labelled", loopSample(t))
	var category string
	require.NoError(t, b.pool.QueryRow(t.Context(), `SELECT category FROM task_finding WHERE task_id = $1 AND NOT expected
		GROUP BY category ORDER BY count(DISTINCT conversation_seq) DESC, category LIMIT 1`, id).Scan(&category))
	list := "/tasks/" + id.String() + "/conversations"

	for _, c := range []struct {
		query url.Values
		label string
	}{
		{url.Values{"category": {category}, "sort": {"turns"}}, "Conversations: Finding: " + report.CategoryLabel(localetest.English(t), category)},
		{url.Values{"sort": {"severity"}}, "All conversations"},
		{url.Values{"q": {"refund"}}, `Conversations: Matching "refund"`},
	} {
		want, pages := listedSeqs(t, b.alice, list+"?"+c.query.Encode())
		require.Greater(t, len(want), 1, c.label)
		first := testid(parse(t, b.alice.Get(t, list+"?"+c.query.Encode())), "conversation-link").First().AttrOr("href", "")
		sorted := c.query
		if !sorted.Has("sort") {
			sorted = url.Values{"q": c.query["q"], "sort": {"failure"}}
		}
		var got []int
		for page := first; page != ""; {
			resp := b.alice.Get(t, page)
			require.Equal(t, http.StatusOK, resp.StatusCode, page)
			doc := parse(t, resp)
			u, err := url.Parse(page)
			require.NoError(t, err)
			seq, err := strconv.Atoi(path.Base(u.Path))
			require.NoError(t, err)
			got = append(got, seq)
			back := testid(doc, "back-to-list")
			require.Equal(t, c.label, back.Text())
			u, err = url.Parse(back.AttrOr("href", ""))
			require.NoError(t, err)
			require.Equal(t, list, u.Path)
			listed := u.Query()
			listed.Del("after")
			require.Equal(t, sorted, listed, "%s: back to the list as it was filtered and sorted", c.label)
			at := parse(t, b.alice.Get(t, u.String()))
			first := testid(at, "conversation-row").First().AttrOr("data-seq", "")
			require.Equal(t, strconv.Itoa(seq), first, "%s: at a page that starts with the conversation", c.label)
			require.Equal(t, len(got) > 1, testid(at, "not-first-page").Length() == 1,
				"%s: a page that is not the first says so, and the first is the first", c.label)
			next := testid(doc, "next-in-list")
			require.Contains(t, []int{0, 2}, next.Length(), "%s: at the top and after the transcript", c.label)
			require.Equal(t, next.First().AttrOr("href", ""), next.Last().AttrOr("href", ""))
			page = next.AttrOr("href", "")
			if page == "" {
				require.Equal(t, 2, testid(doc, "last-in-list").Length(), "%s: the last says so, at its top and its end", c.label)
			}
			require.LessOrEqual(t, len(got), len(want), "%s: no conversation twice", c.label)
		}
		require.Equal(t, want, got, "%s: the list's conversations in its order (%d pages)", c.label, pages)
		t.Logf("%s: %d conversations on %d pages", c.label, len(got), pages)
	}

	doc := parse(t, b.alice.Get(t, list+"/1"))
	require.Zero(t, testid(doc, "back-to-list").Length(), "opened from elsewhere: no list")
	require.Zero(t, testid(doc, "list-nav").Length())
	doc = parse(t, b.alice.Get(t, list+"/1?label=failed"))
	require.Equal(t, "Conversations: Labeled failed", testid(doc, "back-to-list").Text(), "any of the list's filters is a list")
	resp := b.alice.Get(t, list+"/abc")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Contains(t, authtest.Body(t, resp), `There is no conversation "abc" in this diagnosis: its conversations are numbered from 1.`)
	require.Equal(t, http.StatusNotFound, b.bob.Get(t, list+"/abc").StatusCode)
	require.NotContains(t, authtest.Body(t, b.bob.Get(t, list+"/abc")), "numbered", "Bob learns nothing of the task")
	resp = b.alice.Get(t, list+"/1?sort=sideways")
	require.Equal(t, http.StatusOK, resp.StatusCode, "the conversation is shown whatever its list query")
	doc = parse(t, resp)
	require.Equal(t, list, testid(doc, "back-to-list").AttrOr("href", ""))
	require.Equal(t, "All conversations", testid(doc, "back-to-list").Text())
	require.Zero(t, testid(doc, "list-nav").Length(), "no next, and not the last of a list it could not read")
}
