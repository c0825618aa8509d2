package report_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	stdhtml "html"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
	"gitlab.com/golang-commonmark/markdown"

	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/report/reporttest"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

type bundle struct {
	store    *store.Store
	owner    store.Owner
	inserted reporttest.Inserted
}

func setup(t *testing.T, spec reporttest.Task) bundle {
	t.Helper()
	pool := dbtest.Pool(t)
	owner := reporttest.User(t, pool, "pm")
	return bundle{store: store.New(pool), owner: store.NewOwner(owner), inserted: reporttest.Insert(t, pool, owner, spec)}
}

func (b bundle) build(t *testing.T) report.Report {
	t.Helper()
	rows, err := b.store.TaskReport(context.Background(), b.inserted.ID, b.owner, store.ReportFull)
	require.NoError(t, err)
	r, err := report.Build(rows, time.Now(), localetest.English(t))
	require.NoError(t, err)
	return r
}

func TestReportJSONFromStoredRows(t *testing.T) {
	t.Parallel()
	b := setup(t, reporttest.Task{})
	var buf bytes.Buffer
	require.NoError(t, report.WriteJSON(&buf, b.build(t)))

	var got map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got), "report.json parses")
	require.EqualValues(t, 1, got["schema_version"])

	var r report.Report
	require.NoError(t, json.Unmarshal(buf.Bytes(), &r))
	require.EqualValues(t, "completed", r.Task.Status)
	require.True(t, r.Task.Terminal)
	require.True(t, r.Task.Resumed, "attempt 2 after a lost worker")
	require.Len(t, r.Actions, b.inserted.Actions)
	for i, a := range r.Actions {
		require.Equal(t, i+1, a.Rank, "ranks are 1..N in order")
		require.NotEmpty(t, a.Evidence)
	}
	require.Equal(t, "RISK", r.Actions[0].Type)
	require.Len(t, r.FailedActions, 1)
	require.Len(t, r.Clusters, b.inserted.Clusters)
	require.Len(t, r.Findings, b.inserted.Findings)
	require.Len(t, r.Conversations, b.inserted.Conversations)
	require.Len(t, r.Warnings, b.inserted.Warnings)
	require.Equal(t, report.Population{Uploaded: 7, Kept: 6, Analysed: 5, Labelled: report.Labelled{Unlabelled: 6}}, r.Population)
	require.True(t, r.Analysis.Offline)
	require.Equal(t, "offline analysis", r.Analysis.Label)
	require.NotNil(t, r.RiskSummary)
	require.Equal(t, 2, r.RiskSummary.Flagged)
	require.Equal(t, 40*0.4, r.Actions[0].PriorityParts.PrevalenceTerm)
	require.Equal(t, 1, r.Clusters[0].ActionRank, "the most urgent cluster carries Action 1")
	for _, c := range r.Clusters {
		if c.Idx == r.FailedActions[0].ClusterIdx {
			require.Equal(t, report.NoActionFailed, c.NoAction, "an issue whose Action failed says so")
		} else if c.ActionRank > 0 {
			require.Empty(t, c.NoAction)
		}
	}
}

func TestDownloadsAgreeWithReportJSON(t *testing.T) {
	t.Parallel()
	b := setup(t, reporttest.Task{})
	r := b.build(t)
	r.BaseURL = "https://checkup.example/"

	var actions bytes.Buffer
	require.NoError(t, report.WriteActionsCSV(&actions, r))
	rows := readCSV(t, actions.Bytes())
	require.Equal(t, "rank", rows[0][0])
	require.Len(t, rows, 1+len(r.Actions), "one row per Action")
	for i, a := range r.Actions {
		require.Equal(t, strconv.Itoa(a.Rank), rows[i+1][0])
		require.Equal(t, a.Title, rows[i+1][3])
		require.Equal(t, strconv.Itoa(a.Conversations), rows[i+1][4])
		require.Equal(t, "share_percent", rows[0][5])
		require.Equal(t, report.Percent(a.Share), rows[i+1][5], "the share is written as the page writes it")
		require.Equal(t, "evidence_links", rows[0][17])
		require.Equal(t, []string{"failed", "succeeded", "excess_failures", "q_value"}, rows[0][18:22])
		if o := a.LabelOutcomes; o != nil && a.ExcessFailures != nil {
			require.Equal(t, []string{strconv.Itoa(o.Failed), strconv.Itoa(o.Succeeded)}, rows[i+1][18:20])
			require.NotEmpty(t, rows[i+1][20], "the failures its issue explains")
		}
		require.Equal(t, []string{"support_basis", "support_explained", "support_reach"}, rows[0][22:25])
		require.Equal(t, a.Support.Basis, rows[i+1][22], "what the rank rests on, as report.json's support")
		require.Equal(t, strconv.FormatFloat(a.Support.Explained, 'f', -1, 64), rows[i+1][23])
		require.Equal(t, strconv.FormatFloat(a.Support.Reach, 'f', -1, 64), rows[i+1][24])
		links := strings.Split(rows[i+1][17], "\n")
		require.Len(t, links, len(a.Evidence), "one link per quote")
		for j, q := range a.Evidence {
			require.Equal(t, fmt.Sprintf("https://checkup.example/tasks/%s/conversations/%d#turn-%d", r.Task.ID, q.ConversationSeq, q.Turn), links[j])
		}
	}
	require.Contains(t, actions.String(), `'=HYPERLINK`, "a cell starting with = is neutralised")

	var findings bytes.Buffer
	require.NoError(t, report.WriteFindingsCSV(&findings, r))
	frows := readCSV(t, findings.Bytes())
	require.Len(t, frows, 1+len(r.Findings), "one row per finding")
	header := frows[0]
	col := func(name string) int {
		for i, h := range header {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	ranks := map[string]int{}
	issueExpected := map[int]bool{}
	for _, c := range r.Clusters {
		issueExpected[c.Idx] = c.Expected
	}
	for i, f := range r.Findings {
		row := frows[i+1]
		require.Equal(t, f.ConversationID, row[col("conversation_id")])
		require.Equal(t, strconv.Itoa(f.Evidence[0].Turn), row[col("turn")])
		require.Equal(t, f.Evidence[0].Quote, row[col("quote")])
		ranks[row[col("action_rank")]]++
		require.NotNil(t, f.ClusterIdx)
		require.Equal(t, strconv.Itoa(*f.ClusterIdx), row[col("issue_idx")], "the issue it belongs to")
		require.Equal(t, strconv.FormatBool(issueExpected[*f.ClusterIdx]), row[col("expected")], "as its issue is")
	}
	for _, c := range r.Clusters {
		if c.ActionRank > 0 {
			require.Equal(t, c.FindingCount, ranks[strconv.Itoa(c.ActionRank)], "findings of Action %d", c.ActionRank)
		}
	}

	var md bytes.Buffer
	require.NoError(t, report.WriteMarkdown(&md, r, localetest.English(t)))
	text := md.String()
	for _, a := range r.Actions {
		require.Contains(t, text, "### "+strconv.Itoa(a.Rank)+". ["+a.Type+"]")
	}
	require.NotContains(t, text, "### "+strconv.Itoa(len(r.Actions)+1)+".")
	require.Contains(t, text, "analyzed: 5.")
	require.Contains(t, text, "Actions: 2 (1 risk, 1 improvement), from 3 issues.")
}

func TestMarkdownEscapesUploadedText(t *testing.T) {
	t.Parallel()
	b := setup(t, reporttest.Task{Title: "Bot " + reporttest.XSS + " [link](http://evil)"})
	var md bytes.Buffer
	require.NoError(t, report.WriteMarkdown(&md, b.build(t), localetest.English(t)))
	text := md.String()
	require.Contains(t, text, `\[link\](http\://evil)`, "brackets escaped: no link")
	require.Contains(t, text, `# Bot \<script\>alert(1)\</script\>`, "a title is escaped")
	require.Contains(t, text, "`"+reporttest.XSS+"`", "a quote is a code span, shown verbatim")

	// Rendered by a CommonMark renderer that lets raw HTML through, as some wikis do,
	// the hostile text is still only text.
	page := renderMarkdown(t, text)
	require.NotContains(t, page, "<script")
	require.NotContains(t, page, "<b>")
	requireOnlyConversationLinks(t, page, b.inserted.ID.String())
	require.Contains(t, page, "<code>&lt;script&gt;alert(1)&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt;</code>")
	require.Contains(t, page, "Bot &lt;script&gt;alert(1)&lt;/script&gt;")
}

// GitHub's Markdown turns a bare https://…, www.… or an email address into a link:
// in report.md, text from the upload or a model never becomes one, yet reads the same.
func TestMarkdownNeverAutolinks(t *testing.T) {
	t.Parallel()
	b := setup(t, reporttest.Task{Title: "Bot https://evil.example/a"})
	r := b.build(t)
	links := []string{"https://evil.example/steal?x=1", "http://evil.example", "www.evil.example/path", "ftp://evil.example/f",
		"eve@evil.example", "mailto:eve@evil.example", "(https://evil.example/paren)", "*www.evil.example*", "x:https://evil.example"}
	hostile := strings.Join(links, " ")
	r.Task.Error = "failed at " + hostile
	a := &r.Actions[0]
	a.Title, a.Problem, a.ExpectedImpact = hostile, hostile, hostile
	a.Recommendation = []string{hostile}
	a.Evidence[0].ConversationID = "https://evil.example/conversation"
	r.Clusters[0].Title = hostile
	r.Warnings = append(r.Warnings, report.Warning{Scope: "www.evil.example", Message: hostile})
	var md bytes.Buffer
	require.NoError(t, report.WriteMarkdown(&md, r, localetest.English(t)))

	page := renderMarkdown(t, md.String())
	requireOnlyConversationLinks(t, page, r.Task.ID)
	text := stdhtml.UnescapeString(page)
	for _, l := range links {
		require.Contains(t, text, l, "the text reads as written")
	}
	require.Contains(t, text, "conversation https://evil.example/conversation, turn")
}

// TestMarkdownOpensWithSummary: report.md opens with the counts and the top Actions,
// in each language, the share of each Action in the page's word for the figure —
// analyzed (已分析), as the task page's count and its Action cards say it.
func TestMarkdownOpensWithSummary(t *testing.T) {
	t.Parallel()
	b := setup(t, reporttest.Task{})
	r := b.build(t)
	for _, c := range []struct {
		l       *locale.Localizer
		inShort string
		share   func(string) string
	}{
		{localetest.English(t), "**In short:** 7 conversations uploaded, 6 kept after the quality checks, 5 analyzed. 2 Actions:",
			func(p string) string { return " — " + p + " of analyzed conversations" }},
		{localetest.Chinese(t), "**简而言之：** 上传了 7 个对话，质量检查后保留 6 个，分析了 5 个。2 条行动建议：",
			func(p string) string { return " —— 占已分析对话的 " + p }},
	} {
		var md bytes.Buffer
		require.NoError(t, report.WriteMarkdown(&md, r, c.l))
		lines := strings.Split(md.String(), "\n")
		require.Equal(t, c.inShort, lines[2])
		for i, a := range r.Actions {
			require.True(t, strings.HasSuffix(lines[4+i], c.share(report.Percent(a.Share))), lines[4+i])
			word := strings.ToLower(c.l.T("summary.analyzed"))
			require.Contains(t, lines[4+i], word, "the task page's word for the count")
			require.Contains(t, c.l.T("action.share", "Share", "X"), word, "the Action card's word for the share")
		}
	}
}

// renderMarkdown renders GitHub-flavoured Markdown to HTML with raw HTML allowed, by
// goldmark and by a port of markdown-it, which ends a line at a bare "\r" as CommonMark
// says (goldmark does not), the two pages joined: what neither may show, both do not.
// TestMarkdownLinksEachExample: every quote of report.md links to its turn of its
// conversation on the dashboard.
func TestMarkdownLinksEachExample(t *testing.T) {
	t.Parallel()
	b := setup(t, reporttest.Task{})
	r := b.build(t)
	r.BaseURL = "https://checkup.example"
	var md bytes.Buffer
	require.NoError(t, report.WriteMarkdown(&md, r, localetest.English(t)))
	quotes := 0
	for _, a := range r.Actions {
		for _, q := range a.Evidence {
			quotes++
			require.Contains(t, md.String(), fmt.Sprintf("(%s)", report.ConversationLink(r.BaseURL, r.Task.ID, q.ConversationSeq, q.Turn)))
		}
	}
	require.Positive(t, quotes)
	page := renderMarkdown(t, md.String())
	require.GreaterOrEqual(t, strings.Count(page, `<a href="https://checkup.example/tasks/`+r.Task.ID+"/conversations/"), quotes)
}

// requireOnlyConversationLinks fails on any link of a rendered report.md but those to a
// turn of a conversation of task id, which the report writes itself.
func requireOnlyConversationLinks(t *testing.T, page, id string) {
	t.Helper()
	own := regexp.MustCompile(`^(https?://[^/"]+)?/tasks/` + regexp.QuoteMeta(id) + `/conversations/\d+(#turn-\d+)?$`)
	for _, m := range regexp.MustCompile(`<a\b[^>]*>`).FindAllString(page, -1) {
		href := regexp.MustCompile(`^<a href="([^"]*)">$`).FindStringSubmatch(m)
		require.NotNil(t, href, "no text becomes a link: %s", m)
		require.Regexp(t, own, href[1], "no text becomes a link")
	}
}

// renderMarkdown renders GitHub-flavoured Markdown to HTML with raw HTML allowed.
func renderMarkdown(t *testing.T, md string) string {
	t.Helper()
	pages := renderEach(t, md)
	return pages[0] + pages[1]
}

// renderEach is the page of each renderer of renderMarkdown.
func renderEach(t *testing.T, md string) [2]string {
	t.Helper()
	var out bytes.Buffer
	g := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	require.NoError(t, g.Convert([]byte(md), &out))
	it := markdown.New(markdown.HTML(true), markdown.Tables(true), markdown.Linkify(true))
	return [2]string{out.String(), it.RenderToString([]byte(md))}
}

// A quote whose lines end with a bare "\r" or "\r\n" stays a quote in report.md:
// no line of it opens a heading, an image or HTML of its own, in either renderer.
func TestMarkdownQuoteWithCarriageReturnsStaysAQuote(t *testing.T) {
	t.Parallel()
	b := setup(t, reporttest.Task{})
	hostile := "fine\r# Heading\r![x](http://evil.example/i.png)\r\n<img src=x onerror=alert(1)>\r---\rlast"
	for _, c := range []struct {
		name, shown string // shown: the end of the code span that keeps the hostile lines
		plant       func(q *report.Quote)
	}{
		{"a quote", "<code>---</code>", func(q *report.Quote) { q.Quote, q.Exchange = hostile, nil }},
		{"an exchange's turn", "<code>---</code>", func(q *report.Quote) { q.Exchange[0].Quote = hostile }},
		{"a tool call", "--- last(x)</code>", func(q *report.Quote) {
			q.Exchange[0].Quote, q.Exchange[0].Speaker = hostile+"(x)", analyzer.SpeakerCall
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := b.build(t)
			q := &r.Actions[0].Evidence[0]
			require.GreaterOrEqual(t, len(q.Exchange), 2, "the example is an exchange")
			c.plant(q)
			var md bytes.Buffer
			require.NoError(t, report.WriteMarkdown(&md, r, localetest.English(t)))
			require.NotContains(t, md.String(), "\r", "every line ending is a newline")
			for _, page := range renderEach(t, md.String()) {
				require.NotContains(t, page, "<h1>Heading")
				require.NotContains(t, page, "<img")
				require.Contains(t, page, c.shown)
				require.Contains(t, page, "![x](http://evil.example/i.png)")
			}
		})
	}
}

func TestReportIsOwnerScoped(t *testing.T) {
	t.Parallel()
	b := setup(t, reporttest.Task{})
	other := store.NewOwner(reporttest.User(t, dbtest.Pool(t), "other"))
	_, err := b.store.TaskReport(context.Background(), b.inserted.ID, other, store.ReportFull)
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = b.store.TaskReport(context.Background(), uuid.New(), b.owner, store.ReportPage)
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestRunningTaskReport(t *testing.T) {
	t.Parallel()
	b := setup(t, reporttest.Task{Status: "running"})
	rows, err := b.store.TaskReport(context.Background(), b.inserted.ID, b.owner, store.ReportPage)
	require.NoError(t, err)
	r, err := report.Build(rows, time.Now(), localetest.English(t))
	require.NoError(t, err)
	require.EqualValues(t, "running", r.Task.Status)
	require.False(t, r.Task.Terminal)
	require.Empty(t, r.Findings, "the page read leaves findings out")
	require.Len(t, r.Actions, 2)
}

// readCSV checks a CSV download starts with the UTF-8 byte order mark Excel needs and
// parses what follows it.
func readCSV(t *testing.T, b []byte) [][]string {
	t.Helper()
	rest, ok := bytes.CutPrefix(b, []byte("\ufeff"))
	require.True(t, ok, "a CSV download starts with a UTF-8 byte order mark")
	rows, err := csv.NewReader(bytes.NewReader(rest)).ReadAll()
	require.NoError(t, err)
	return rows
}

func TestContentDisposition(t *testing.T) {
	t.Parallel()
	id := "0b7e3f9a-1111-2222-3333-444455556666"
	for _, tc := range []struct{ title, want string }{
		{"Support bot, March", `attachment; filename="support-bot-march-0b7e3f9a-report.json"`},
		{"航空客服 三月", `attachment; filename="checkup-0b7e3f9a-report.json"; filename*=UTF-8''%E8%88%AA%E7%A9%BA%E5%AE%A2%E6%9C%8D-%E4%B8%89%E6%9C%88-0b7e3f9a-report.json`},
		{"Bot 客服 v2", `attachment; filename="bot-v2-0b7e3f9a-report.json"; filename*=UTF-8''bot-%E5%AE%A2%E6%9C%8D-v2-0b7e3f9a-report.json`},
		{`"; evil=1 <>`, `attachment; filename="evil-1-0b7e3f9a-report.json"`},
		{"!!!", `attachment; filename="checkup-0b7e3f9a-report.json"`},
	} {
		require.Equal(t, tc.want, report.ContentDisposition(tc.title, id, "report.json"), tc.title)
	}
	require.LessOrEqual(t, len([]rune(report.Slug(strings.Repeat("ab ", 100)))), 60)
}
