package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	stdhtml "html"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/renderer/html"
)

func TestCodeSpanIsVerbatim(t *testing.T) {
	t.Parallel()
	g := goldmark.New(goldmark.WithRendererOptions(html.WithUnsafe()))
	for _, s := range []string{
		"plain words",
		"<script>alert(1)</script>",
		"use `rm -rf` here",
		"``double`` and `single`",
		"`starts with a backtick",
		"ends with a backtick`",
		"```",
		" leading space",
		"trailing space ",
		"  both  ",
		`\*not emphasis\* [not](a link) <b>&amp;</b>`,
	} {
		var out bytes.Buffer
		require.NoError(t, g.Convert([]byte("> "+codeSpan(s)), &out), s)
		page := out.String()
		require.Equal(t, 1, strings.Count(page, "<code>"), "%q: one code span in %s", s, page)
		start := strings.Index(page, "<code>") + len("<code>")
		end := strings.Index(page, "</code>")
		require.Equal(t, s, stdhtml.UnescapeString(page[start:end]), "%q shows verbatim", s)
		require.NotContains(t, page, "<b>")
		require.NotContains(t, page, "<script")
	}
}

func TestExcessFailuresIsInWords(t *testing.T) {
	t.Parallel()
	require.Equal(t, "4.4 failures", ExcessFailures(localetest.English(t), 4.4))
	require.Equal(t, "1 failure", ExcessFailures(localetest.English(t), 1.04))
	require.Equal(t, "no failures", ExcessFailures(localetest.English(t), -0.4))
	require.Equal(t, "no failures", ExcessFailures(localetest.English(t), 0.04), "what rounds to nothing is nothing")
}

func TestRiskExampleIsMarkedWhereCut(t *testing.T) {
	t.Parallel()
	require.Equal(t, "…`the reservation. If you`…", RiskExample{CutBefore: true, CutAfter: true}.Marked(inlineQuote("the reservation. If you")))
	require.Equal(t, "`Bye.`", RiskExample{}.Marked(inlineQuote("Bye.")))
}

// A report.md downloaded before the quality checks ran counts the upload, and gives no
// kept or analyzed count it does not have.
func TestMarkdownOfQueuedTaskCountsTheUpload(t *testing.T) {
	t.Parallel()
	var md bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, Report{Task: Task{Title: "Queued", Status: "pending", ConversationCount: 5000}}, localetest.English(t)))
	require.Contains(t, md.String(), "5000 conversations uploaded; the quality checks have not run yet.")
	require.Contains(t, md.String(), "Conversations uploaded: 5000; the quality checks have not run yet.")

	md.Reset()
	require.NoError(t, WriteMarkdown(&md, Report{Task: Task{Title: "Canceled", Status: "canceled", Terminal: true, ConversationCount: 5000}}, localetest.English(t)))
	require.Contains(t, md.String(), "5000 conversations uploaded; the diagnosis stopped before the quality checks.")
	require.NotContains(t, md.String(), "0 kept")
}

// A word driver's row says where it is written, its quote a code span whose pipes are
// escaped so the table keeps its columns.
func TestMarkdownDriverRowQuotesWhereItIsWritten(t *testing.T) {
	t.Parallel()
	var md bytes.Buffer
	out := bufio.NewWriter(&md)
	mdWriter{w: out, l: localetest.English(t)}.outcomes(Report{Task: Task{Terminal: true}, Population: Population{Labelled: Labelled{Field: "success", Failed: 6, Succeeded: 4}}, Drivers: []Driver{{
		Kind: "user_words", Feature: "refund", Failed: 5, Succeeded: 1, RateWith: 0.83, RateWithout: 0.25, Lift: 1.4, QValue: 0.03,
		Examples: []Ref{{Seq: 2, ID: "c2"}}, Written: &DriverQuote{Ref: Ref{Seq: 2, ID: "c2"}, Turn: 3, Quote: "refund | or credit?"},
	}}})
	require.NoError(t, out.Flush())
	require.Contains(t, md.String(), "| the user wrote: refund, as in `refund \\| or credit?` (c2, turn 3) | 5 / 1 |")
}

// A cell a spreadsheet would run as a formula gets an apostrophe; a negative number,
// which runs nothing, stays a number.
func TestNeutraliseLeavesNegativeNumbers(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"-0.38", "-12", "'-", "'-1+2", "'-0.3.8", "'=1+1", "'@SUM(A1)", "'+1", "0.5", "'-cmd"},
		neutralise([]string{"-0.38", "-12", "-", "-1+2", "-0.3.8", "=1+1", "@SUM(A1)", "+1", "0.5", "-cmd"}))
}

// Under the issues table, report.md says what its "Ranked by" column orders it by, once
// what each no-Action reason in it means, and which policy sentence an issue the owner
// made an issue had been matched to.
func TestMarkdownExplainsIssuesWithoutAnAction(t *testing.T) {
	t.Parallel()
	excess := 0.5
	cs := []Cluster{
		{Idx: 0, Type: "ACTION", Title: "A", NoAction: NoActionRankedBelow, OutcomeSplit: OutcomeSplit{ExcessFailures: &excess}},
		{Idx: 1, Type: "ACTION", Title: "B", NoAction: NoActionRankedBelow},
		{Idx: 2, Type: "ACTION", Title: "Agent declines as its policy says", NoAction: NoActionIssueSince,
			PolicyOverruled: true, ExpectedReason: "It may answer", Policies: []string{"Never share balances."}},
	}
	notes := func(cs []Cluster) string {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		mdWriter{w: w, l: localetest.English(t)}.issueNotes(cs)
		require.NoError(t, w.Flush())
		return b.String()
	}
	_, below := NoActionWords(localetest.English(t), cs[0])
	_, since := NoActionWords(localetest.English(t), cs[2])
	order := "- *Ranked by*: " + mdText(localetest.English(t).T("clusters.order")) + "\n"
	require.Equal(t, order+"- *not among the 10 chosen*: "+mdText(below)+"\n"+
		"- *run again*: "+mdText(since)+"\n"+
		"- Agent declines as its policy says had been matched to the policy sentence `Never share balances.`\n\n", notes(cs))
	require.Equal(t, order+"\n", notes([]Cluster{{Type: "ACTION", Title: "C", ActionRank: 1}}), "only the order when every issue has its Action")
}

// TestMarkdownCountsRisksWaitingForARun: the closing line says RISK Actions cover every
// risk found, but those expected when they were written.
func TestMarkdownCountsRisksWaitingForARun(t *testing.T) {
	t.Parallel()
	about := func(r Report) string {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		mdWriter{w: w, l: localetest.English(t)}.about(r)
		require.NoError(t, w.Flush())
		return b.String()
	}
	r := Report{Clusters: []Cluster{{Type: "RISK", Title: "Leak", ActionRank: 1}}}
	require.Contains(t, about(r), "RISK Actions cover every risk found; ")
	r.Clusters = append(r.Clusters, Cluster{Type: "RISK", Title: "Card", NoAction: NoActionIssueSince})
	require.Contains(t, about(r), "RISK Actions cover every risk found but one that was expected when they were written: a new run writes its Action; ")
	r.Clusters = append(r.Clusters, Cluster{Type: "RISK", Title: "Phone", NoAction: NoActionIssueSince})
	require.Contains(t, about(r), "RISK Actions cover every risk found but 2 that were expected when they were written: a new run writes their Actions; ")
}

// TestExamplesShowTheExchange: an Action's example is the quote of its finding that
// says most in words, not a serialized tool call, and carries the finding's exchange
// in turn order; report.md writes the exchange who said what, the call named.
func TestExamplesShowTheExchange(t *testing.T) {
	t.Parallel()
	ev := `[{"turn": 19, "quote": "return_items({\"order_id\":\"#W1\"})", "verified": true, "speaker": "call"},
		{"turn": 18, "quote": "PayPal, please.", "verified": true, "speaker": "user"},
		{"turn": 21, "quote": "The return is submitted.", "verified": true, "speaker": "agent"}]`
	quotes, err := clusterQuotes([]dbsqlc.ListTaskClusterEvidenceRow{{ClusterIdx: 0, ConversationSeq: 4, ExternalID: "retail-14", Title: "t", Evidence: []byte(ev)}})
	require.NoError(t, err)
	q := quotes[0][0]
	require.Equal(t, "PayPal, please.", q.Quote, "words before a serialized call")
	require.Equal(t, 18, q.Turn)
	require.Equal(t, []int{18, 19, 21}, []int{q.Exchange[0].Turn, q.Exchange[1].Turn, q.Exchange[2].Turn})

	var md bytes.Buffer
	w := bufio.NewWriter(&md)
	mdWriter{w, localetest.English(t)}.example(q)
	require.NoError(t, w.Flush())
	require.Equal(t, "> **User** (turn 18): `PayPal, please.`\n>\n> **Agent** (turn 19) calls `return_items`\n>\n> **Agent** (turn 21): `The return is submitted.`\n", md.String())
	require.NotContains(t, md.String(), "order_id", "the call's arguments are not printed")
}

// TestAnExampleSaysWhatItShows: each Action example carries its finding's description,
// in the reader's language where the rules wrote it by message, and report.md writes
// it above the example.
func TestAnExampleSaysWhatItShows(t *testing.T) {
	t.Parallel()
	words, err := json.Marshal(analyzer.Words{Description: locale.Msg("finding.retry_removed_all", "Turn", locale.Lit("24"))})
	require.NoError(t, err)
	ev := `[{"turn": 24, "quote": "\"flights\": []", "verified": true, "speaker": "tool"}]`
	quotes, err := clusterQuotes([]dbsqlc.ListTaskClusterEvidenceRow{{ClusterIdx: 0, ConversationSeq: 4, ExternalID: "a-15", Title: "t",
		Evidence: []byte(ev), Description: "Its result at turn 24 no longer holds what it left out.", Text: words}})
	require.NoError(t, err)
	q := quotes[0][0]
	require.Equal(t, "Its result at turn 24 no longer holds what it left out.", q.DescriptionIn(localetest.English(t)))
	require.Equal(t, "第 24 轮的结果里已经没有被去掉的内容：这次重试把它从记录中删掉了，而用户从未同意。", q.DescriptionIn(localetest.Chinese(t)))

	r := Report{Actions: []Action{{Rank: 1, Title: "Fix", Evidence: []Quote{q}}}}
	var md bytes.Buffer
	w := bufio.NewWriter(&md)
	mdWriter{w, localetest.English(t)}.actions(r)
	require.NoError(t, w.Flush())
	require.Contains(t, md.String(), "*This example:* Its result at turn 24 no longer holds what it left out.\n\n> **Tool result**")

	// The case the Problem already tells is not told again, in either language.
	told := Action{Problem: "Retries drop flights in 2 of 9 conversations. In one of them, its result at turn 24 no longer holds what it left out. Example: …",
		Words: &analyzer.ActionWords{Problem: locale.Join("join.sentences", locale.Lit("重试在 2 个对话中去掉了航班。"), locale.Msg("finding.retry_removed_all", "Turn", locale.Lit("24")))}}
	require.Equal(t, "the case described in the Problem above.", told.ShowsIn(localetest.English(t), q))
	require.Equal(t, "即上文“问题”所述的情况。", told.ShowsIn(localetest.Chinese(t), q))
	require.Equal(t, q.DescriptionIn(localetest.English(t)), r.Actions[0].ShowsIn(localetest.English(t), q), "a Problem that tells another case")

	old, err := clusterQuotes([]dbsqlc.ListTaskClusterEvidenceRow{{ClusterIdx: 0, ConversationSeq: 4, Title: "t", Evidence: []byte(ev)}})
	require.NoError(t, err)
	require.Empty(t, old[0][0].DescriptionIn(localetest.Chinese(t)), "an example stored before examples carried it says nothing")
}

// TestMarkdownSaysARetryIsTheSameCall: report.md writes a retried call that repeats an
// earlier one whole (SameAs) as such, beside its cut arguments, in either language.
func TestMarkdownSaysARetryIsTheSameCall(t *testing.T) {
	t.Parallel()
	q := Quote{ConversationSeq: 4, ConversationID: "airline-8", Turn: 32, Quote: "Error", Verified: true, Exchange: []Evidence{
		{Turn: 31, Quote: `"flight_type":"round_trip"`, Verified: true, Speaker: "call", Tool: "book_reservation", Continues: true},
		{Turn: 35, Quote: `"flight_type":"round_trip"`, Verified: true, Speaker: "call", Tool: "book_reservation", Continues: true, SameAs: 31},
		{Turn: 37, Quote: `book_reservation({"flight_type":"round_trip"})`, Verified: true, Speaker: "call", Tool: "book_reservation", SameAs: 31},
	}}
	for _, c := range []struct {
		l    *locale.Localizer
		want []string
	}{
		{localetest.English(t), []string{"> **Agent** (turn 31) calls `book_reservation` with `\"flight_type\":\"round_trip\"` …",
			"> **Agent** (turn 35) calls `book_reservation` again with the same arguments as at turn 31: `\"flight_type\":\"round_trip\"` …",
			"> **Agent** (turn 37) calls `book_reservation` again with the same arguments as at turn 31\n"}},
		{localetest.Chinese(t), []string{"调用 `book_reservation`，参数与第 31 轮完全相同，即 `\"flight_type\":\"round_trip\"` …",
			"调用 `book_reservation`，参数与第 31 轮完全相同\n"}},
	} {
		var md bytes.Buffer
		w := bufio.NewWriter(&md)
		mdWriter{w, c.l}.example(q)
		require.NoError(t, w.Flush())
		for _, want := range c.want {
			require.Contains(t, md.String(), want)
		}
	}
}

// TestMarkdownTypesReadInTheReadersLanguage: report.md marks Actions and issues RISK
// and ACTION in English and 风险 and 改进 in Chinese, as the task page's badges do — in
// the top lines, the Action headings, the issues table and the issues seen once.
func TestMarkdownTypesReadInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	r := Report{
		Task:    Task{Title: "Types", Status: "completed", Terminal: true},
		Actions: []Action{{Rank: 1, Type: "RISK", Title: "Leak", Share: 0.2}, {Rank: 2, Type: "ACTION", Title: "Slow", Share: 0.1}},
		Clusters: []Cluster{{Idx: 0, Type: "RISK", Title: "Leak", Conversations: 2, ActionRank: 1}, {Idx: 1, Type: "ACTION", Title: "Slow", Conversations: 1, ActionRank: 2},
			{Idx: 2, Type: "ACTION", Title: "Once", Conversations: 1, NoAction: NoActionSeenOnce, Support: Support{SeenOnce: true}, Example: &Quote{Quote: "Hi", Turn: 1}}},
	}
	for lang, want := range map[string][2]string{"en": {"RISK", "ACTION"}, "zh-CN": {"风险", "改进"}} {
		l := localetest.English(t)
		if lang == "zh-CN" {
			l = localetest.Chinese(t)
		}
		var md bytes.Buffer
		require.NoError(t, WriteMarkdown(&md, r, l))
		risk, action := want[0], want[1]
		for _, line := range []string{"1. [" + risk + "] ", "2. [" + action + "] ", "### 1. [" + risk + "] ", "### 2. [" + action + "] ",
			"| " + risk + " | Leak |", "| " + action + " | Slow |", "- [" + action + "] Once"} {
			require.Contains(t, md.String(), "\n"+line, "%s: %q", lang, line)
		}
		if lang != "en" {
			require.NotRegexp(t, `\[(RISK|ACTION)\]|\| (RISK|ACTION) \|`, md.String(), "no English type left")
		}
	}
}

// TestReadableDropsEmphasisOnly: a quote is shown without Markdown's emphasis markers
// around words, and with everything else it holds.
func TestReadableDropsEmphasisOnly(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"- **Reservation ID:** ABC123":          "- Reservation ID: ABC123",
		"__Total__: $305 and **two** bags":      "Total: $305 and two bags",
		"book_reservation and update__baggages": "book_reservation and update__baggages",
		"2 ** 3 is 8, a * b":                    "2 ** 3 is 8, a * b",
		"** not emphasis **":                    "** not emphasis **",
		"我已为您**取消**预订":                          "我已为您取消预订",
	} {
		require.Equal(t, want, Readable(in), in)
	}
}

// TestExamplesReadWithoutMarkdown: report.md writes what the agent and the user said
// in an example without Markdown's emphasis markers, a turn's lines each ending in a
// hard break but the last, and a tool's result as it is.
func TestExamplesReadWithoutMarkdown(t *testing.T) {
	t.Parallel()
	q := Quote{Quote: "**Booked.**", Turn: 3, Exchange: []Evidence{
		{Turn: 2, Quote: `{"note": "**raw**"}`, Speaker: "tool", Tool: "book_reservation"},
		{Turn: 3, Quote: "**Booked.**\n- **Reservation ID:** ABC123", Speaker: "agent"},
	}}
	var md bytes.Buffer
	w := bufio.NewWriter(&md)
	mdWriter{w, localetest.English(t)}.example(q)
	mdWriter{w, localetest.English(t)}.example(Quote{Quote: "__Sure__, **done**."})
	require.NoError(t, w.Flush())
	require.Equal(t, "> **Tool result** of `book_reservation` (turn 2): `{\"note\": \"**raw**\"}`\n>\n"+
		"> **Agent** (turn 3): `Booked.`  \n> `- Reservation ID: ABC123`\n"+
		"> `Sure, done.`\n", md.String())
}

// TestExchangeLinesJoinOneTurnsQuotes: quotes in a row from one turn by one speaker are
// one line of the exchange, labelled once with "…" between; the same turn's quote by
// another speaker, or after another turn, is a line of its own.
func TestExchangeLinesJoinOneTurnsQuotes(t *testing.T) {
	t.Parallel()
	ex := []Evidence{
		{Turn: 6, Quote: `"gift_card_1": {"amount": 6}`, Speaker: "tool", Tool: "get_user_details"},
		{Turn: 6, Quote: `"gift_card_2": {"amount": 113}`, Speaker: "tool", Tool: "get_user_details"},
		{Turn: 7, Quote: "Yes", Speaker: "user"},
		{Turn: 6, Quote: `"gift_card_3": {}`, Speaker: "tool", Tool: "get_user_details"},
	}
	lines := Lines(ex)
	require.Len(t, lines, 3)
	require.Len(t, lines[0], 2)
	var b bytes.Buffer
	out := bufio.NewWriter(&b)
	mdWriter{w: out, l: localetest.English(t)}.example(Quote{Exchange: ex})
	require.NoError(t, out.Flush())
	require.Contains(t, b.String(), "> **Tool result** of `get_user_details` (turn 6): `\"gift_card_1\": {\"amount\": 6}`  \n> …  \n> `\"gift_card_2\": {\"amount\": 113}`\n")
	require.Equal(t, 2, strings.Count(b.String(), "**Tool result**"))
}

// TestPriorityShowsOnlyWhereItOrders: the priority score only breaks ties of the rank,
// so an Action shows it only when the one ranked next to it has the same Support: a
// PM never reads a higher priority on a lower-ranked Action as a contradiction.
func TestPriorityShowsOnlyWhereItOrders(t *testing.T) {
	t.Parallel()
	common := Support{Basis: "prevalence", Reach: 0.2}
	tied := Support{Basis: "prevalence", Reach: 0.05}
	actions := []Action{
		{Rank: 1, Title: "Common", Support: common, PriorityScore: 30},
		{Rank: 2, Title: "Tied first", Support: tied, PriorityScore: 60},
		{Rank: 3, Title: "Tied second", Support: tied, PriorityScore: 40},
		{Rank: 4, Title: "Rare", Support: Support{Basis: "prevalence", Reach: 0.01}, PriorityScore: 90},
		{Rank: 5, Title: "Tied again", Support: Support{Basis: "prevalence", Reach: 0.005}, PriorityScore: 42},
		{Rank: 6, Title: "Tied by priority too", Support: Support{Basis: "prevalence", Reach: 0.005}, PriorityScore: 42},
		{Rank: 7, Title: "Three tied, first", Support: Support{Basis: "prevalence", Reach: 0.001}, PriorityScore: 60},
		{Rank: 8, Title: "Three tied, second", Support: Support{Basis: "prevalence", Reach: 0.001}, PriorityScore: 60},
		{Rank: 9, Title: "Three tied, third", Support: Support{Basis: "prevalence", Reach: 0.001}, PriorityScore: 40},
	}
	markPriorityDecided(actions)
	var orders []bool
	for _, a := range actions {
		orders = append(orders, a.PriorityDecided)
	}
	require.Equal(t, []bool{false, true, true, false, false, false, true, true, true}, orders,
		"an equal priority decides nothing; in a run of three, the priority placed the first above the third")

	for _, l := range []*locale.Localizer{localetest.English(t), localetest.Chinese(t)} {
		var md bytes.Buffer
		w := bufio.NewWriter(&md)
		mdWriter{w, l}.actions(Report{Actions: actions})
		require.NoError(t, w.Flush())
		sections := strings.Split(md.String(), "### ")[1:]
		require.Len(t, sections, 9)
		for i, s := range sections {
			require.Equal(t, orders[i], strings.Contains(s, Score(actions[i].PriorityScore)+"/100") || strings.Contains(s, "priority "+Score(actions[i].PriorityScore)), "%d: %s", i, s)
		}
	}
}
