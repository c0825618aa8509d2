package web_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// TestConversationListMatchesSQL diagnoses the labelled sample and eight Chinese chats
// offline, then reads the conversation list over HTTP page by page (following
// rel="next") for each filter, search and sort, and requires exactly the conversations,
// in exactly the order, that a plain SQL query over the stored rows gives, or for a
// search, a plain word match over the stored messages. A filtered list says how many
// it holds.
func TestConversationListMatchesSQL(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	id := b.diagnose(t, b.alice, "Support, labelled", loopSample(t))
	ctx := context.Background()

	var biggest, driver int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT idx FROM task_cluster WHERE task_id = $1
		ORDER BY cardinality(conversation_seqs) DESC, idx LIMIT 1`, id).Scan(&biggest))
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT coalesce(max(idx), -1) FROM task_driver WHERE task_id = $1`, id).Scan(&driver))
	require.GreaterOrEqual(t, driver, 0, "the labelled sample has failure drivers")
	var category string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT category FROM task_finding WHERE task_id = $1 AND NOT expected
		GROUP BY category ORDER BY count(DISTINCT conversation_seq) DESC, category LIMIT 1 OFFSET 1`, id).Scan(&category))

	const (
		byFailure  = `coalesce(c.failure_score, -1) DESC`
		byTurns    = `c.message_count DESC`
		bySeverity = `coalesce((SELECT max(f.severity) FROM task_finding f
			WHERE f.task_id = c.task_id AND f.conversation_seq = c.seq AND NOT f.expected), 0) DESC`
	)
	cases := []struct {
		name, query, where, order string
		matching                  []string // a search: the words the stored messages must have
	}{
		{name: "all", order: byFailure},
		{name: "by turns", query: "sort=turns", order: byTurns},
		{name: "by severity", query: "sort=severity", order: bySeverity},
		{name: "cluster", query: "cluster=" + strconv.Itoa(biggest), order: byFailure,
			where: `EXISTS (SELECT 1 FROM task_cluster k WHERE k.task_id = c.task_id AND k.idx = ` + strconv.Itoa(biggest) + ` AND c.seq = ANY(k.conversation_seqs))`},
		{name: "driver", query: "driver=" + strconv.Itoa(driver) + "&sort=turns", order: byTurns,
			where: `EXISTS (SELECT 1 FROM task_driver d WHERE d.task_id = c.task_id AND d.idx = ` + strconv.Itoa(driver) + ` AND c.seq = ANY(d.conversation_seqs))`},
		{name: "category", query: "category=" + category, order: byFailure,
			where: `EXISTS (SELECT 1 FROM task_finding f WHERE f.task_id = c.task_id AND f.conversation_seq = c.seq
				AND f.category = '` + category + `' AND NOT f.expected)`},
		{name: "min severity", query: "min_severity=3&sort=severity", order: bySeverity,
			where: `EXISTS (SELECT 1 FROM task_finding f WHERE f.task_id = c.task_id AND f.conversation_seq = c.seq
				AND f.severity >= 3 AND NOT f.expected)`},
		{name: "label", query: "label=failed", order: byFailure, where: `c.label = 'failed'`},
		{name: "risk", query: "risk=refusal", order: byFailure,
			where: `EXISTS (SELECT 1 FROM jsonb_array_elements(CASE jsonb_typeof(c.risk_flags) WHEN 'array' THEN c.risk_flags ELSE '[]' END) r
				WHERE r ->> 'kind' = 'refusal')`},
		{name: "search", query: "q=compensation", order: byFailure, matching: []string{"compens"}},
		{name: "search of two words", query: "sort=turns&q=" + url.QueryEscape("Refunds certificate"), order: byTurns, matching: []string{"refund", "certif"}},
		{name: "search in Chinese", query: "q=" + url.QueryEscape("退款"), order: byFailure, matching: []string{"退款"}},
		{name: "search in an issue", query: "sort=turns&q=refund&cluster=" + strconv.Itoa(biggest), order: byTurns, matching: []string{"refund"},
			where: `EXISTS (SELECT 1 FROM task_cluster k WHERE k.task_id = c.task_id AND k.idx = ` + strconv.Itoa(biggest) + ` AND c.seq = ANY(k.conversation_seqs))`},
		{name: "search and filters", query: "q=refund&label=succeeded&min_severity=2", order: byFailure, matching: []string{"refund"},
			where: `c.label = 'succeeded' AND EXISTS (SELECT 1 FROM task_finding f WHERE f.task_id = c.task_id
				AND f.conversation_seq = c.seq AND f.severity >= 2 AND NOT f.expected)`},
	}
	all := allConversations(t, b.pool, id)
	for _, c := range cases {
		where := cmp.Or(c.where, "true")
		if c.matching != nil {
			seqs := matchingSeqs(all, c.matching)
			require.NotEmpty(t, seqs, c.name)
			require.Less(t, len(seqs), len(all), c.name)
			where += " AND c.seq = ANY('" + intArray(seqs) + "'::int[])"
		}
		want := sqlSeqs(t, b.pool, id, where, c.order)
		got, pages := listedSeqs(t, b.alice, "/tasks/"+id.String()+"/conversations?"+c.query)
		require.NotEmpty(t, want, "%s: the case lists something", c.name)
		require.Equal(t, want, got, "%s (%d pages)", c.name, pages)
		require.Equal(t, (len(want)+49)/50, pages, "%s: pages of 50", c.name)
		count := listCount(t, b.alice, "/tasks/"+id.String()+"/conversations?"+c.query)
		if c.where != "" || c.matching != nil {
			require.Equal(t, localetest.English(t).N("matches.count", len(want))+".", count, "%s: a filtered list says how many", c.name)
		} else {
			require.Equal(t, localetest.English(t).N("count.conversations", len(want))+".", count, "%s: the whole list says how many were kept", c.name)
		}
		t.Logf("%s: %d conversations on %d pages", c.name, len(got), pages)
	}
	require.Greater(t, len(all), 100, "the unfiltered list spans pages")

	// The category menu offers the categories of the task's issues, and the one chosen.
	r, err := b.pool.Query(ctx, `SELECT DISTINCT category FROM task_cluster WHERE task_id = $1 AND NOT expected ORDER BY 1`, id)
	require.NoError(t, err)
	issueCategories, err := pgx.CollectRows(r, pgx.RowTo[string])
	require.NoError(t, err)
	offered := func(query string) []string {
		options := parse(t, b.alice.Get(t, "/tasks/"+id.String()+"/conversations?"+query)).Find(`#filter-category option[value!=""]`)
		return slices.Sorted(slices.Values(options.Map(func(_ int, o *goquery.Selection) string { return o.AttrOr("value", "") })))
	}
	require.Equal(t, issueCategories, offered(""))
	require.Less(t, len(issueCategories), len(analyzer.Categories()), "fewer than every category")
	require.NotContains(t, issueCategories, "prompt_injection")
	require.Contains(t, offered("category=prompt_injection"), "prompt_injection", "the chosen one, though no issue has it")

	// The task page leads from its numbers to the list: the kept conversations, and
	// each risk flag's, as many as it says.
	page := parse(t, b.alice.Get(t, "/tasks/"+id.String()))
	browse := testid(page, "stat-browse").AttrOr("href", "")
	got, _ := listedSeqs(t, b.alice, browse)
	require.Equal(t, len(all), len(got), "browse them: every kept conversation")
	kinds := testid(page, "risk-kind-conversations")
	require.Positive(t, kinds.Length())
	for i := range kinds.Length() {
		got, _ := listedSeqs(t, b.alice, kinds.Eq(i).AttrOr("href", ""))
		require.Equal(t, kinds.Eq(i).Text(), strconv.Itoa(len(got)), kinds.Eq(i).AttrOr("href", ""))
	}

	// An issue's list shows each row's finding of that issue, why it is listed, as its
	// top finding or below it. An expected issue's too.
	var expectedIssue int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT idx FROM task_cluster WHERE task_id = $1 AND expected ORDER BY idx LIMIT 1`, id).Scan(&expectedIssue))
	for _, idx := range []int{biggest, expectedIssue} {
		rows := testid(parse(t, b.alice.Get(t, fmt.Sprintf("/tasks/%s/conversations?cluster=%d", id, idx))), "conversation-row")
		require.Positive(t, rows.Length())
		for i := range rows.Length() {
			seq, err := strconv.Atoi(rows.Eq(i).AttrOr("data-seq", ""))
			require.NoError(t, err)
			r, err := b.pool.Query(ctx, `SELECT title FROM task_finding WHERE task_id = $1 AND conversation_seq = $2 AND cluster_idx = $3`, id, seq, idx)
			require.NoError(t, err)
			titles, err := pgx.CollectRows(r, pgx.RowTo[string])
			require.NoError(t, err)
			cell := rows.Eq(i).Find(`[data-testid="conversation-top-finding"]`)
			shown := cell.Text() // the top finding, when it is the issue's
			if in := cell.Find(`[data-testid="conversation-issue-finding"]`); in.Length() > 0 {
				shown = strings.TrimPrefix(in.Text(), "In this issue: ")
				require.Contains(t, titles, shown, "issue %d, conversation %d", idx, seq)
			}
			require.True(t, slices.ContainsFunc(titles, func(title string) bool { return strings.Contains(shown, title) }),
				"issue %d, conversation %d: %q shows one of the issue's findings: %q", idx, seq, cell.Text(), titles)
		}
	}

	// The count of a search's matches repeats the list's filters in a query of its
	// own: with every filter, it says as many as the pages list.
	for _, filter := range []string{"cluster=" + strconv.Itoa(biggest), "driver=" + strconv.Itoa(driver), "category=" + category,
		"min_severity=3", "label=failed", "risk=refusal"} {
		path := "/tasks/" + id.String() + "/conversations?q=reservation&" + filter
		got, _ := listedSeqs(t, b.alice, path)
		matches := listCount(t, b.alice, path)
		require.Equal(t, localetest.English(t).N("matches.count", len(got))+".", matches, filter)
		t.Logf("search with %s: %s", filter, matches)
	}
}

// TestConversationListRefusesBadFilters: every value the list cannot use is a 400 that
// says which and why, for the owner; for anyone else the task is a 404 whatever the
// filters.
func TestConversationListRefusesBadFilters(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	id := b.diagnose(t, b.alice, "Support", loopSample(t)[:20])
	path := "/tasks/" + id.String() + "/conversations?"
	count := "/tasks/" + id.String() + "/conversations/count?"
	for query, says := range map[string]string{
		"sort=newest":                   `"newest" is not a sort of this list`,
		"cluster=two":                   `The issue is given by its number (0, 1, 2…), not "two".`,
		"cluster=-1":                    `not "-1"`,
		"cluster=999":                   "There is no issue 999 in this diagnosis.",
		"driver=x":                      `The failure driver is given by its number`,
		"driver=5":                      "There is no failure driver 5 in this diagnosis.",
		"category=flights":              `"flights" is not a finding category.`,
		"min_severity=9":                `The lowest severity is a number from 1 to 5, not "9".`,
		"min_severity=high":             `not "high"`,
		"label=maybe":                   `The outcome label is failed or succeeded, not "maybe".`,
		"risk=spam":                     `"spam" is not a kind of risk flag.`,
		"q=" + url.QueryEscape("!!! ?"): `The search "!!! ?" has no words to look for.`,
		"q=" + strings.Repeat("a", 201): "The search is 201 characters long; keep it to 200.",
		"after=garbage":                 "This page's address is not one the list made",
		"sort=turns&after=0.5_3":        "This page's address is not one the list made",
	} {
		resp := b.alice.Get(t, path+query)
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, query)
		doc := parse(t, resp)
		require.Contains(t, testid(doc, "filter-problem").Text(), says, query)
		require.Equal(t, 0, testid(doc, "conversation-row").Length(), query)
		require.Equal(t, 1, testid(doc, "conversation-filters").Length(), "the form is there to fix it: %s", query)

		resp = b.bob.Get(t, path+query)
		require.Equal(t, http.StatusNotFound, resp.StatusCode, "Bob: %s", query)
		require.NotContains(t, authtest.Body(t, resp), "Support", "Bob learns nothing of the task")

		// The count the page loads refuses the same, but an issue or a driver that does
		// not exist, which holds no conversations.
		resp = b.alice.Get(t, count+query)
		if strings.Contains(says, "There is no") {
			require.Equal(t, http.StatusOK, resp.StatusCode, query)
			require.Equal(t, "0 conversations match.", testid(parse(t, resp), "list-matches").Text(), query)
		} else {
			require.Equal(t, http.StatusBadRequest, resp.StatusCode, query)
			require.Contains(t, authtest.Body(t, resp), says, query)
		}
		require.Equal(t, http.StatusNotFound, b.bob.Get(t, count+query).StatusCode, "Bob: %s", query)
	}
	require.Equal(t, http.StatusNotFound, b.bob.Get(t, count+"label=failed").StatusCode, "Bob counts nothing")

	// A form sent with menus left at "Any" is sent on to the address without them.
	resp := b.alice.Get(t, path+"q=&cluster=&label=failed&min_severity=&sort=turns")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/tasks/"+id.String()+"/conversations?label=failed&sort=turns", resp.Header.Get("Location"))
	resp = b.alice.Get(t, path+"q=&risk=&sort=failure")
	require.Equal(t, "/tasks/"+id.String()+"/conversations", resp.Header.Get("Location"))

	// The refused page's form offers the task's issues, and keeps the filters sent.
	resp = b.alice.Get(t, path+"label=maybe&cluster=0")
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	doc := parse(t, resp)
	require.Greater(t, doc.Find(`#filter-cluster option`).Length(), 1, "the issues to choose from")
	require.Equal(t, "0", doc.Find(`#filter-cluster option[selected]`).AttrOr("value", ""), "the issue sent stays chosen")
	require.Equal(t, http.StatusNotFound, b.alice.Get(t, "/tasks/"+uuid.NewString()+"/conversations").StatusCode)
	require.Equal(t, http.StatusNotFound, b.alice.Get(t, "/tasks/not-a-uuid/conversations").StatusCode)

	// A task diagnosed before search documents were stored says so instead of "no match".
	doc = parse(t, b.alice.Get(t, path+"q=hello"))
	require.Equal(t, 0, testid(doc, "unsearchable").Length())
	_, err := b.pool.Exec(context.Background(), `DELETE FROM task_search WHERE task_id = $1`, id)
	require.NoError(t, err)
	doc = parse(t, b.alice.Get(t, path+"q=hello"))
	require.Contains(t, testid(doc, "unsearchable").Text(), "Run again")
	require.Equal(t, 0, testid(parse(t, b.alice.Get(t, path+"label=failed")), "unsearchable").Length(), "only a search asks")
}

// storedConversation is what the expected sets are computed from.
type storedConversation struct {
	seq      int
	messages []transcript.Message
}

func allConversations(t *testing.T, pool *pgxpool.Pool, id uuid.UUID) []storedConversation {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT seq, messages FROM task_conversation
		WHERE task_id = $1 AND qc_status = 'kept' ORDER BY seq`, id)
	require.NoError(t, err)
	defer rows.Close()
	var out []storedConversation
	for rows.Next() {
		var c storedConversation
		var raw []byte
		require.NoError(t, rows.Scan(&c.seq, &raw))
		require.NoError(t, json.Unmarshal(raw, &c.messages))
		out = append(out, c)
	}
	require.NoError(t, rows.Err())
	return out
}

var plainWord = regexp.MustCompile(`[\p{L}\p{N}]+`)

// matchingSeqs are the conversations whose messages, the system prompt aside, have a
// word starting with each of prefixes (or, in Chinese, contain it): a plain match, for
// prefixes whose words stem to themselves or longer.
func matchingSeqs(convs []storedConversation, prefixes []string) []int {
	var out []int
	for _, c := range convs {
		var text strings.Builder
		for _, m := range c.messages {
			if m.Role == transcript.RoleSystem {
				continue
			}
			text.WriteString(m.Content + " " + m.Name + " ")
			for _, call := range m.ToolCalls {
				text.WriteString(call.Name + " ")
			}
		}
		lower := strings.ToLower(text.String())
		words := plainWord.FindAllString(lower, -1)
		all := true
		for _, p := range prefixes {
			latin := p[0] < utf8.RuneSelf
			found := !latin && strings.Contains(lower, p)
			for _, w := range words {
				found = found || (latin && strings.HasPrefix(w, p))
			}
			all = all && found
		}
		if all {
			out = append(out, c.seq)
		}
	}
	return out
}

func sqlSeqs(t *testing.T, pool *pgxpool.Pool, id uuid.UUID, where, order string) []int {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT c.seq FROM task_conversation c
		WHERE c.task_id = $1 AND c.qc_status = 'kept' AND `+where+` ORDER BY `+order+`, c.seq`, id)
	require.NoError(t, err)
	defer rows.Close()
	var out []int
	for rows.Next() {
		var seq int
		require.NoError(t, rows.Scan(&seq))
		out = append(out, seq)
	}
	require.NoError(t, rows.Err())
	return out
}

// listedSeqs reads every page of the list from path on, following rel="next", and
// returns the conversations in the order shown and the number of pages.
func listedSeqs(t *testing.T, c *authtest.Client, path string) ([]int, int) {
	t.Helper()
	var seqs []int
	pages := 0
	seen := map[int]bool{}
	for path != "" {
		resp := c.Get(t, path)
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		doc := parse(t, resp)
		pages++
		rows := testid(doc, "conversation-row")
		require.LessOrEqual(t, rows.Length(), 50)
		for i := range rows.Length() {
			seq, err := strconv.Atoi(rows.Eq(i).AttrOr("data-seq", ""))
			require.NoError(t, err)
			require.False(t, seen[seq], "conversation %d is on one page only", seq)
			seen[seq] = true
			seqs = append(seqs, seq)
		}
		path = doc.Find(`a[rel="next"]`).AttrOr("href", "")
		require.Less(t, pages, 100)
	}
	return seqs, pages
}

// listCount is what the list at path says of how many conversations it holds: a
// search's count on the page, or the count the page loads for its filters; "" when it
// says nothing.
func listCount(t *testing.T, c *authtest.Client, path string) string {
	t.Helper()
	doc := parse(t, c.Get(t, path))
	if matches := testid(doc, "list-matches"); matches.Length() > 0 {
		require.Zero(t, testid(doc, "list-count").Length(), "counted once")
		return matches.Text()
	}
	load := testid(doc, "list-count")
	if load.Length() == 0 {
		return ""
	}
	require.Equal(t, "load", load.AttrOr("hx-trigger", ""))
	resp := c.Get(t, load.AttrOr("hx-get", ""))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return testid(parse(t, resp), "list-matches").Text()
}

func intArray(seqs []int) string {
	parts := make([]string, len(seqs))
	for i, s := range seqs {
		parts[i] = strconv.Itoa(s)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// TestConversationListSearchesCommonAndRareWords lists 2,100 short conversations by
// words every one of them has (checked along the list's sort, one word and two) and by
// a word a few have, alone and with a common one (listed from the words' index), page
// by page, and requires exactly the conversations SQL gives for each. The match line
// counts a search of few matches, and says a search of more than store.FewMatches is
// not counted, and that the other filters come after it; a filter that lets more
// through says so too.
func TestConversationListSearchesCommonAndRareWords(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	convs := make([]transcript.Conversation, 2100)
	for i := range convs {
		extra := ""
		if i%50 == 7 {
			extra = " and my parcel is lost"
		}
		convs[i] = transcript.Conversation{ID: fmt.Sprintf("c%d", i+1), Messages: []transcript.Message{
			{Role: transcript.RoleUser, Content: fmt.Sprintf("Hello, I need help with order %d%s.", i+1, extra)},
			{Role: transcript.RoleAssistant, Content: "Let me check that order for you."},
			{Role: transcript.RoleUser, Content: "Thanks, it is urgent. Can I talk to a human agent?"},
			{Role: transcript.RoleAssistant, Content: fmt.Sprintf("Order %d is on its way.", i+1)},
		}}
	}
	id := b.diagnose(t, b.alice, "Orders", convs)
	has := func(word string) string { return `lower(c.messages::text) LIKE '%` + word + `%'` }
	for query, where := range map[string]string{
		"q=hello&sort=turns":                    has("hello"),
		"q=parcels":                             has("parcel"),
		"q=" + url.QueryEscape("thanks, hello"): has("thank") + " AND " + has("hello"),
		"q=" + url.QueryEscape("hello parcel"):  has("hello") + " AND " + has("parcel"),
	} {
		order := `coalesce(c.failure_score, -1) DESC`
		if strings.Contains(query, "turns") {
			order = `c.message_count DESC`
		}
		want := sqlSeqs(t, b.pool, id, where, order)
		got, pages := listedSeqs(t, b.alice, "/tasks/"+id.String()+"/conversations?"+query)
		require.Equal(t, want, got, query)
		t.Logf("%s: %d conversations on %d pages", query, len(got), pages)
	}

	require.Greater(t, len(convs), store.FewMatches, "every conversation says hello: too many to count")
	many := "More than " + localetest.English(t).Num(store.FewMatches) + " conversations contain these words"
	for query, want := range map[string]string{
		"q=hello":                many + ".",
		"q=hello&min_severity=1": many + ", before the other filters.",
		"q=parcels":              localetest.English(t).N("matches.count", len(convs)/50) + ".",
		"risk=human_request":     "More than " + localetest.English(t).Num(store.FewMatches) + " conversations match.",
	} {
		require.Equal(t, want, listCount(t, b.alice, "/tasks/"+id.String()+"/conversations?"+query), query)
	}
	// Without JavaScript the count is a link to the page counting as it lists.
	doc := parse(t, b.alice.Get(t, "/tasks/"+id.String()+"/conversations?risk=human_request"))
	counted := doc.Find(`[data-testid="list-count"] noscript`).Text()
	href := regexp.MustCompile(`href="([^"]+)"`).FindStringSubmatch(counted)
	require.Len(t, href, 2, "a link in %q", counted)
	doc = parse(t, b.alice.Get(t, html.UnescapeString(href[1])))
	require.Equal(t, "More than 2,000 conversations match.", testid(doc, "list-matches").Text())
	require.Zero(t, testid(doc, "list-count").Length())
	require.Equal(t, 50, testid(doc, "conversation-row").Length(), "and lists as before")

	for query, want := range map[string]string{"min_severity=3": "Severity 3 or more", "min_severity=5": "Severity 5, the most severe"} {
		require.Equal(t, want, testid(parse(t, b.alice.Get(t, "/tasks/"+id.String()+"/conversations?"+query)), "list-filter").Text(), query)
	}
}

// TestConversationListFindsAToolByItsName: a search for a tool's name lists the
// conversations that call it, not those that only have its words; a document stored
// before names were indexed whole is still found by the name's words.
func TestConversationListFindsAToolByItsName(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	conv := func(id string, msgs ...transcript.Message) transcript.Conversation {
		return transcript.Conversation{ID: id, Messages: append(msgs,
			transcript.Message{Role: transcript.RoleAssistant, Content: "Is there anything else I can help with?"})}
	}
	convs := []transcript.Conversation{
		conv("calls", transcript.Message{Role: transcript.RoleUser, Content: "Where is my parcel?"},
			transcript.Message{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{{ID: "1", Name: "get_order_details", Arguments: `{"id": 7}`}}},
			transcript.Message{Role: transcript.RoleTool, ToolCallID: "1", Name: "get_order_details", Content: `{"status": "shipped"}`}),
		conv("words", transcript.Message{Role: transcript.RoleUser, Content: "Get me the details of my order, please."},
			transcript.Message{Role: transcript.RoleAssistant, Content: "Your order details are on the way."}),
		conv("neither", transcript.Message{Role: transcript.RoleUser, Content: "Thanks for the quick answer."},
			transcript.Message{Role: transcript.RoleAssistant, Content: "You are welcome."}),
	}
	for range 3 { // the quality checks keep a task of at least a few conversations
		convs = append(convs, conv(fmt.Sprintf("more-%d", len(convs)), transcript.Message{Role: transcript.RoleUser, Content: fmt.Sprintf("Question %d about a refund.", len(convs))}))
	}
	id := b.diagnose(t, b.alice, "Tools", convs)
	path := "/tasks/" + id.String() + "/conversations?q="
	seqOf := func(external string) int {
		var seq int
		require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT seq FROM task_conversation WHERE task_id = $1 AND external_id = $2`, id, external).Scan(&seq))
		return seq
	}

	got, _ := listedSeqs(t, b.alice, path+"get_order_details")
	require.Equal(t, []int{seqOf("calls")}, got)
	resp := b.alice.Get(t, path+url.QueryEscape(" words "))
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, "a conversation's id goes to it")
	require.Equal(t, fmt.Sprintf("/tasks/%s/conversations/%d", id, seqOf("words")), resp.Header.Get("Location"))
	require.Equal(t, http.StatusNotFound, b.bob.Get(t, path+"words").StatusCode, "another owner finds no such task")
	resp = b.alice.Get(t, path+"WORDS")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, "an id typed in capitals goes to it too")
	require.Equal(t, fmt.Sprintf("/tasks/%s/conversations/%d", id, seqOf("words")), resp.Header.Get("Location"))
	got, _ = listedSeqs(t, b.alice, path+"Get_Order")
	require.Equal(t, []int{seqOf("calls")}, got, "the start of a name, in any case")
	got, _ = listedSeqs(t, b.alice, path+"order_details")
	require.Equal(t, []int{seqOf("calls")}, got, "the end of a name")

	// Documents of before: no names, and the first (which the search asks) no marker.
	_, err := b.pool.Exec(context.Background(), `UPDATE task_search SET doc = ts_delete(doc, ARRAY['get_order_details', 'order_details'])
		WHERE task_id = $1`, id)
	require.NoError(t, err)
	_, err = b.pool.Exec(context.Background(), `UPDATE task_search SET doc = ts_delete(doc, '_names')
		WHERE task_id = $1 AND seq = (SELECT min(seq) FROM task_search WHERE task_id = $1)`, id)
	require.NoError(t, err)
	got, _ = listedSeqs(t, b.alice, path+"get_order_details")
	require.ElementsMatch(t, []int{seqOf("calls"), seqOf("words")}, got, "documents of before are found by the name's words")
}

// TestSearchShowsTheMatchAndFindsIDsByTheirStart: each result of a search quotes where
// its conversation matched, linked to that turn, in English and Chinese; the start of
// one id opens its conversation, the start of several lists them above the results.
func TestSearchShowsTheMatchAndFindsIDsByTheirStart(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	conv := func(id string, msgs ...transcript.Message) transcript.Conversation {
		return transcript.Conversation{ID: id, Messages: append(msgs,
			transcript.Message{Role: transcript.RoleAssistant, Content: "Is there anything else I can help with?"})}
	}
	convs := []transcript.Conversation{
		conv("order-20240517-a1", transcript.Message{Role: transcript.RoleUser, Content: "Hello there."},
			transcript.Message{Role: transcript.RoleAssistant, Content: "Your order was refunded on Monday; the money reaches your card within a week."}),
		conv("zh-ticket-1", transcript.Message{Role: transcript.RoleUser, Content: "我想申请退款，订单还没发货"},
			transcript.Message{Role: transcript.RoleAssistant, Content: "好的，已为您提交退款申请。"}),
		conv("zh-ticket-2", transcript.Message{Role: transcript.RoleUser, Content: "请帮我查一下物流"},
			transcript.Message{Role: transcript.RoleAssistant, Content: "您的包裹明天送达。"}),
	}
	for range 3 {
		convs = append(convs, conv(fmt.Sprintf("more-%d", len(convs)), transcript.Message{Role: transcript.RoleUser, Content: fmt.Sprintf("Question %d about a parcel.", len(convs))}))
	}
	id := b.diagnose(t, b.alice, "Search", convs)
	path := "/tasks/" + id.String() + "/conversations?q="
	seqOf := func(external string) int {
		var seq int
		require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT seq FROM task_conversation WHERE task_id = $1 AND external_id = $2`, id, external).Scan(&seq))
		return seq
	}

	doc := parse(t, b.alice.Get(t, path+"refunds"))
	snippet := testid(doc, "conversation-snippet")
	require.Equal(t, 1, snippet.Length())
	require.Contains(t, snippet.Text(), "Your order was refunded on Monday")
	href, _ := snippet.Parent().Find("a").Attr("href")
	require.Equal(t, fmt.Sprintf("/tasks/%s/conversations/%d#turn-2", id, seqOf("order-20240517-a1")), href, "the turn it matched in")
	doc = parse(t, b.alice.Get(t, path+url.QueryEscape("退款")))
	require.Equal(t, "我想申请退款，订单还没发货", testid(doc, "conversation-snippet").Text())
	require.Zero(t, testid(parse(t, b.alice.Get(t, "/tasks/"+id.String()+"/conversations")), "conversation-snippet").Length(), "no search, no quote")

	resp := b.alice.Get(t, path+"order-2024")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, "the start of one id opens it")
	require.Equal(t, fmt.Sprintf("/tasks/%s/conversations/%d", id, seqOf("order-20240517-a1")), resp.Header.Get("Location"))
	resp = b.alice.Get(t, path+"ZH-TICKET")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	doc = parse(t, resp)
	require.Equal(t, []string{"zh-ticket-1", "zh-ticket-2"}, testid(doc, "id-match").Map(func(_ int, s *goquery.Selection) string { return s.Text() }))
	require.Contains(t, testid(doc, "id-matches").Text(), "2 conversations' ids start with “ZH-TICKET”")
	require.Zero(t, testid(doc, "no-conversations").Length(), "the ids are what matched")
	require.Equal(t, http.StatusNotFound, b.bob.Get(t, path+"zh-ticket").StatusCode, "another owner finds no such task")
}
