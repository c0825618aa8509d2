package pages_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/cluster"
)

// TestActionsSayWhatTheyAreRankedBy: the page says once what the Actions are ranked by
// (cluster.SupportFormula), and each card what its own rank rests on.
func TestActionsSayWhatTheyAreRankedBy(t *testing.T) {
	t.Parallel()
	r := sampleReport("completed")
	r.Actions[0].Support = report.Support{Basis: cluster.BasisLabels, Conversations: 10, Failures: 9, RunRate: 0.5, RateLow: 0.65, Explained: 1.5,
		Formula: cluster.SupportFormula}
	r.Actions[1].Support = report.Support{Basis: cluster.BasisPrevalence, Conversations: 20, ShareLow: 0.153, Severity: 3, Confidence: 0.8, Reach: 0.061}
	r.Actions[0].PriorityParts.Formula = cluster.PriorityFormula
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
	order := testid(doc, "actions-order").Text()
	require.Contains(t, order, "Each is ranked by what it is sure to explain")
	require.Contains(t, order, "listed under “Seen once”, without an Action")
	words := testid(doc, "support-words")
	require.Equal(t, 2, words.Length(), "every card says what its rank rests on")
	require.Equal(t, "It explains at least 1.5 failures: 9 of its 10 labeled conversations failed, against 50% of all labeled ones.", words.Eq(0).Text())
	require.Equal(t, "No outcomes are labeled, so it ranks by how common and severe it is: it reaches at least 15% of the analyzed conversations, at severity 3 of 5 and 80% confidence, a weighted reach of 6.1%.",
		words.Eq(1).Text())
	require.Equal(t, cluster.SupportFormula, testid(doc, "support-formula").First().Text())
	require.Equal(t, 1, testid(doc, "support-formula").Length(), "the formula is the same for every Action: stated once, above the cards")
	require.Zero(t, testid(doc, "action").Find(`[data-testid="support-formula"]`).Length())

	// In Chinese the formula is explained in Chinese.
	var zh bytes.Buffer
	require.NoError(t, pages.TaskShow(page, pages.TaskView{Report: r}).Render(localetest.Context(localetest.Chinese(t)), &zh))
	zhDoc, err := goquery.NewDocumentFromReader(&zh)
	require.NoError(t, err)
	formula := testid(zhDoc, "support-formula").First().Text()
	require.Contains(t, formula, "至少能解释的失败数")
	require.NotContains(t, formula, "failures explained")
	require.NotContains(t, formula, "low", "its variables too")
	require.Equal(t, "优先级 = 40·√普遍度 + 40·(严重度 − 1)/4 + 20·置信度", testid(zhDoc, "priority-formula").First().Text())
	require.Equal(t, cluster.PriorityFormula, testid(doc, "priority-formula").First().Text())

	// While it runs, before any issue is grouped, the sentence is the same.
	running := sampleReport("running")
	running.Clusters, running.Actions = nil, nil
	doc, _ = render(t, pages.TaskShow(page, pages.TaskView{Report: running}))
	require.Equal(t, order, testid(doc, "actions-order").Text())
}

// TestSeenOnceIsListedBelowTheActions: an issue seen in one conversation has no Action;
// it is listed apart, with its quote and a link to its conversation, and the "All
// issues" table says why it has no Action.
func TestSeenOnceIsListedBelowTheActions(t *testing.T) {
	t.Parallel()
	r := sampleReport("completed")
	r.Clusters = append(r.Clusters, report.Cluster{Idx: 3, Type: "RISK", Title: "User is abusive", Conversations: 1, Prevalence: 0.01,
		NoAction: report.NoActionSeenOnce, Support: report.Support{SeenOnce: true},
		Example: &report.Quote{ConversationSeq: 12, ConversationID: "c12", Turn: 5, Quote: "You idiot"}})
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
	seen := testid(doc, "seen-once")
	require.Equal(t, 1, seen.Length())
	require.Equal(t, 1, testid(doc, "seen-once-issue").Length())
	require.Equal(t, "You idiot", testid(doc, "seen-once-quote").Text())
	link, _ := seen.Find(`a[href*="/conversations/12"]`).Attr("href")
	require.Contains(t, link, "turn-5")
	require.Contains(t, testid(doc, "clusters").Text(), "seen once")

	doc, _ = render(t, pages.TaskShow(page, pages.TaskView{Report: sampleReport("completed")}))
	require.Zero(t, testid(doc, "seen-once").Length(), "nothing seen once, no section")
}

// TestActionsSayHowManyAreListed: the page counts the ACTION Actions it lists against
// the ACTION issues, so an issue marked expected or a cap of ten shows in the number.
func TestActionsSayHowManyAreListed(t *testing.T) {
	t.Parallel()
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: sampleReport("completed")}))
	require.Equal(t, "the most urgent of 2 is listed", testid(doc, "actions-listed").Text(), "Long chats has no Action")
	require.NotContains(t, testid(doc, "actions").Text(), "ten most urgent")

	r := sampleReport("completed")
	for i := range 3 {
		r.Clusters = append(r.Clusters, report.Cluster{Idx: 3 + i, Type: "ACTION", Title: "More", Conversations: 1})
		r.Actions = append(r.Actions, report.Action{Rank: 3 + i, Type: "ACTION", Title: "More"})
	}
	doc, _ = render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
	require.Equal(t, "the 4 most urgent of 5 are listed", testid(doc, "actions-listed").Text())

	r = sampleReport("completed")
	r.Clusters[2].Expected = true
	doc, _ = render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
	require.Equal(t, "every one found is listed", testid(doc, "actions-listed").Text())

	// An issue that ranks among them only since a mark is counted apart: the listed ones
	// are not the most urgent then.
	r = sampleReport("completed")
	for i := range r.Clusters {
		if r.Clusters[i].Type == "ACTION" && r.Clusters[i].ActionRank == 0 {
			r.Clusters[i].NoAction = report.NoActionIssueSince
		}
	}
	r.ActionIssuesNextRun = 2
	doc, _ = render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
	require.Equal(t, "1 of 2 is listed, and running the diagnosis again writes 1 more", testid(doc, "actions-listed").Text())
}

// TestRisksSayWhichWaitForARun: every RISK issue has its Action listed, but one that
// was expected when the Actions were written, which the page says a new run writes.
func TestRisksSayWhichWaitForARun(t *testing.T) {
	t.Parallel()
	r := sampleReport("completed")
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
	require.Equal(t, "every one found is listed", testid(doc, "risks-listed").Text())
	for n, want := range map[int]string{
		1: "every one found is listed but one, expected when the Actions were written: running the diagnosis again writes its Action",
		2: "every one found is listed but 2, expected when the Actions were written: running the diagnosis again writes theirs",
	} {
		r := sampleReport("completed")
		for i := range n {
			r.Clusters = append(r.Clusters, report.Cluster{Idx: 10 + i, Type: "RISK", Title: "Leak", Conversations: 1, NoAction: report.NoActionIssueSince})
		}
		doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
		require.Equal(t, want, testid(doc, "risks-listed").Text(), n)
	}
}

// TestWaitingIssuesTakeListedPlacesAtTheCap: a new run writes at most
// cluster.MaxActionCandidates ACTION Actions, so an issue that ranks among them since a
// mark takes the place of the last listed one when they are all taken, and the page
// does not promise more.
func TestWaitingIssuesTakeListedPlacesAtTheCap(t *testing.T) {
	t.Parallel()
	withIssues := func(listed, waiting int) report.Report {
		r := sampleReport("completed")
		r.Actions, r.Clusters = nil, nil
		for i := range listed + waiting {
			c := report.Cluster{Idx: i, Type: "ACTION", Title: fmt.Sprintf("Issue %d", i), Conversations: 1}
			if i < listed {
				c.ActionRank = i + 1
				r.Actions = append(r.Actions, report.Action{Rank: i + 1, Type: "ACTION", Title: c.Title})
			} else {
				c.NoAction = report.NoActionIssueSince
			}
			r.Clusters = append(r.Clusters, c)
		}
		r.ActionIssuesNextRun = min(listed+waiting, cluster.MaxActionCandidates)
		return r
	}
	for _, c := range []struct {
		listed, waiting int
		want            string
	}{
		{10, 1, "10 of 11 are listed; running the diagnosis again writes an Action for the issue that ranks among them now, in place of the last one listed"},
		{10, 2, "10 of 12 are listed; running the diagnosis again writes Actions for the 2 issues that rank among them now, in place of the last 2 listed"},
		{9, 2, "9 of 11 are listed; running the diagnosis again writes Actions for the 2 issues that rank among them now: 1 more, and 1 in place of the last one listed"},
		{8, 2, "8 of 10 are listed, and running the diagnosis again writes 2 more"},
	} {
		doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: withIssues(c.listed, c.waiting)}))
		require.Equal(t, c.want, testid(doc, "actions-listed").Text(), "%d listed, %d waiting", c.listed, c.waiting)
	}
}

// TestIssueCountsAgree: the summary card counts the issues the way "All issues found"
// does, and names the expected behaviors besides them.
func TestIssueCountsAgree(t *testing.T) {
	t.Parallel()
	r := sampleReport("completed")
	r.Clusters = append(r.Clusters,
		report.Cluster{Idx: 3, Type: "ACTION", Title: "Declines what its policy rules out", Conversations: 9, Expected: true},
		report.Cluster{Idx: 4, Type: "ACTION", Title: "Asks for an id first", Conversations: 5, Expected: true})
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
	require.Equal(t, "from 3 issues, besides 2 expected behaviors", testid(doc, "stat-issues").Text())
	require.Equal(t, "All issues found (3)", testid(doc, "clusters").Find("h2").Text())
	require.Equal(t, 2, testid(doc, "expected-cluster").Length())

	doc, _ = render(t, pages.TaskShow(page, pages.TaskView{Report: sampleReport("completed")}))
	require.Equal(t, "from 3 issues", testid(doc, "stat-issues").Text())
}

// TestActionCardShowsTheExchange: an example that is part of an exchange shows it turn
// by turn, the user's words, the call named (never its serialized arguments) and the
// agent's reply, each linked to its turn.
func TestActionCardShowsTheExchange(t *testing.T) {
	t.Parallel()
	r := sampleReport("completed")
	r.Actions[0].Evidence = []report.Quote{{ConversationSeq: 4, ConversationID: "retail-14", Turn: 18, Quote: "PayPal, please.", Verified: true,
		Exchange: []report.Evidence{
			{Turn: 18, Quote: "PayPal, please.", Verified: true, Speaker: "user"},
			{Turn: 19, Quote: `return_items({"order_id":"#W1"})`, Verified: true, Speaker: "call"},
			{Turn: 21, Quote: "The return is submitted.", Verified: true, Speaker: "agent"},
			{Turn: 23, Quote: `"payment_id":"paypal_1"`, Verified: true, Speaker: "call"},
		}}}
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
	ex := testid(doc, "evidence-exchange").First()
	require.Equal(t, 4, ex.Find("li").Length())
	calls := ex.Find(`[data-testid="evidence-call"]`)
	require.Equal(t, "calls return_items", strings.TrimSpace(calls.Eq(0).Text()))
	require.Equal(t, `calls it with "payment_id":"paypal_1"`, strings.TrimSpace(calls.Eq(1).Text()), "a changed argument is shown as it is")
	require.NotContains(t, ex.Text(), "order_id")
	require.Contains(t, ex.Find("li").Eq(0).Text(), "User, turn 18")
	require.Contains(t, ex.Find("li").Eq(2).Text(), "The return is submitted.")
	href, _ := ex.Find("li").Eq(2).Find("a").Attr("href")
	require.Contains(t, href, "/conversations/4#turn-21")
}

// TestActionCardSaysARetryIsTheSameCall: a retried call whose arguments are the earlier
// call's, whole (SameAs), says so beside its cut quote, in either language; a call
// with other arguments does not.
func TestActionCardSaysARetryIsTheSameCall(t *testing.T) {
	t.Parallel()
	r := sampleReport("completed")
	r.Actions[0].Evidence = []report.Quote{{ConversationSeq: 4, ConversationID: "airline-8", Turn: 32, Quote: "Error: payment amount does not add up", Verified: true,
		Exchange: []report.Evidence{
			{Turn: 31, Quote: `"flight_type":"round_trip"`, Verified: true, Speaker: "call", Tool: "book_reservation", Continues: true},
			{Turn: 32, Quote: "Error: payment amount does not add up", Verified: true, Speaker: "tool", Tool: "book_reservation"},
			{Turn: 35, Quote: `"flight_type":"round_trip"`, Verified: true, Speaker: "call", Tool: "book_reservation", Continues: true, SameAs: 31},
		}}}
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
	calls := testid(doc, "evidence-exchange").First().Find(`[data-testid="evidence-call"]`)
	require.Equal(t, `calls book_reservation with "flight_type":"round_trip" …`, strings.TrimSpace(calls.Eq(0).Text()))
	require.Equal(t, `calls book_reservation again with the same arguments as at turn 31: "flight_type":"round_trip" …`, strings.TrimSpace(calls.Eq(1).Text()))

	var zh strings.Builder
	require.NoError(t, pages.TaskShow(page, pages.TaskView{Report: r}).Render(localetest.Context(localetest.Chinese(t)), &zh))
	zhDoc, err := goquery.NewDocumentFromReader(strings.NewReader(zh.String()))
	require.NoError(t, err)
	zhCalls := zhDoc.Find(`[data-testid="evidence-exchange"]`).First().Find(`[data-testid="evidence-call"]`)
	require.Equal(t, `调用 book_reservation，参数与第 31 轮完全相同，即 "flight_type":"round_trip" …`, strings.TrimSpace(zhCalls.Eq(1).Text()))
}

// TestRunNamesItsFileInTheReadersPunctuation: the file a run came from and its count
// read "export.jsonl (100 conversations)" in English and with full-width brackets in
// Chinese.
func TestRunNamesItsFileInTheReadersPunctuation(t *testing.T) {
	t.Parallel()
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: sampleReport("completed")}))
	require.Equal(t, "export.jsonl (100 conversations)", testid(doc, "source").Text())
	var zh bytes.Buffer
	require.NoError(t, pages.TaskShow(page, pages.TaskView{Report: sampleReport("completed")}).Render(localetest.Context(localetest.Chinese(t)), &zh))
	zhDoc, err := goquery.NewDocumentFromReader(&zh)
	require.NoError(t, err)
	require.Equal(t, "export.jsonl（100 个对话）", testid(zhDoc, "source").Text())
}
