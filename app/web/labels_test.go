package web_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
)

// agentOf is the id of task id's agent.
func agentOf(t *testing.T, b labelsBundle, id uuid.UUID) int64 {
	t.Helper()
	var agent int64
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT agent_id FROM analysis_task WHERE id = $1`, id).Scan(&agent))
	return agent
}

// in is the elements under s with data-testid id.
func in(s *goquery.Selection, id string) *goquery.Selection {
	return s.Find(`[data-testid="` + id + `"]`)
}

// words is a selection's text with its runs of white space made one space.
func words(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }

// TestLabelledUploadOnThePages uploads the airline set with its outcome labels, which
// train the agent's detector, and reads what the pages say of it: where the task's
// failure scores come from, with the interval and what counting messages scores; the
// label check's baselines; the clusters' estimated failures; the agents' pages; the
// upload form offering the agent; and a label the owner gives against the upload's,
// which is kept and shown beside it while the upload's counts, and is in labels.csv.
// Another owner sees none of it, and every mistake is refused with a sentence.
func TestLabelledUploadOnThePages(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	id := b.upload(t, b.alice, "Airline, labelled", "Airline agent", withCopy(t, readSample(t), "airline-copy"))
	alice, bob := b.alice.browser, b.bob.browser
	agent := agentOf(t, b, id)

	doc := parse(t, alice.Get(t, "/tasks/"+id.String()))
	source := words(testid(doc, "failure-source"))
	require.Regexp(t, `^Failure scores come from Airline agent's detector, version 1, trained on 100 labeled conversations from 1 run: `+
		`cross-validated AUROC 0\.\d\d \(95% interval 0\.\d\d–(0\.\d\d|1\.00)\), where counting messages alone would score 0\.\d\d\.$`, source)
	require.Equal(t, fmt.Sprintf("/agents/%d", agent), testid(doc, "failure-source").Find("a").AttrOr("href", ""))
	require.Regexp(t, `^Counting alone would score messages 0\.\d\d, user turns 0\.\d\d, tool calls 0\.\d\d\.$`, words(testid(doc, "label-baselines")))
	require.Contains(t, words(testid(doc, "task-agent")), "agent Airline agent")
	require.NotZero(t, testid(doc, "cluster-estimated").Length(), "each issue shows its estimated failures")
	require.Contains(t, words(testid(doc, "clusters-estimated")), "estimated failures are its conversations labeled failed")
	require.Zero(t, testid(doc, "learning-pending").Length())

	// The owner says the first conversation, failed by the upload, succeeded: the
	// upload's label wins, and both are shown.
	resp := alice.PostForm(t, "/tasks/"+id.String()+"/conversations/1/label?from=conversation&sort=to_label", url.Values{"outcome": {"succeeded"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, authtest.Body(t, resp))
	require.Equal(t, "/tasks/"+id.String()+"/conversations/1?sort=to_label", resp.Header.Get("Location"), "back where it came from, the list kept")
	doc = parse(t, alice.Get(t, resp.Header.Get("Location")))
	require.Equal(t, "Labeled succeeded.", words(testid(doc, "flash")))
	require.Equal(t, "failed as the upload recorded it.", words(testid(doc, "label-state")))
	require.Regexp(t, `^You labeled it succeeded on .+\. The upload's label counts, and both are kept\.$`, words(testid(doc, "label-conflict")))
	require.Contains(t, words(testid(doc, "label-counter")), "Airline agent's detector learns from 69 failed and 31 succeeded labels")
	require.Equal(t, "f", testid(doc, "label-failed").AttrOr("data-shortcut", ""))
	require.Equal(t, "true", testid(doc, "label-succeeded").AttrOr("aria-pressed", ""))
	require.Equal(t, 1, testid(doc, "label-clear").Length(), "what the owner said can be taken back")
	require.Empty(t, b.learningTasks(t, id), "the upload's label stands, so the detector has nothing new to learn")

	rows := labelsCSV(t, alice, id)
	require.Len(t, rows, 100, "one row per kept conversation")
	first := rows[0]
	require.Equal(t, []string{"1", "airline-task00-trial0", "failed", "upload", "succeeded"}, first[:5])
	require.NotEmpty(t, first[5], "when the owner said it")
	require.Equal(t, "failed", first[7], "its estimated outcome beside its score "+first[6])

	// htmx gets the panel, or the list's cell with the counter out of band.
	resp = htmxForm(t, alice, "/tasks/"+id.String()+"/conversations/1/label?from=conversation", "clear")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	panel := parse(t, resp)
	require.Equal(t, 1, testid(panel, "label-panel").Length())
	require.Zero(t, testid(panel, "label-conflict").Length(), "taken back")
	resp = htmxForm(t, alice, "/tasks/"+id.String()+"/conversations/2/label?from=list&sort=to_label", "failed")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	cell := parseCell(t, resp)
	require.Equal(t, "failed", testid(cell, "conversation-label").AttrOr("data-label-value", ""))
	require.Equal(t, "true", testid(cell, "label-counter").AttrOr("hx-swap-oob", ""), "the list most useful to label has the counter")
	resp = htmxForm(t, alice, "/tasks/"+id.String()+"/conversations/2/label?from=list&sort=turns", "failed")
	require.Zero(t, testid(parseCell(t, resp), "label-counter").Length(), "a list without one gets none")

	// Every mistake is refused with a sentence, and changes nothing.
	task := "/tasks/" + id.String()
	for name, c := range map[string]struct {
		path, outcome string
		status        int
		says          string
	}{
		"bad outcome":     {task + "/conversations/3/label", "maybe", http.StatusBadRequest, `The outcome is failed, succeeded or clear, not "maybe".`},
		"no such seq":     {task + "/conversations/999/label", "failed", http.StatusNotFound, "There is no conversation 999 in this diagnosis."},
		"not a number":    {task + "/conversations/x/label", "failed", http.StatusNotFound, "There is no conversation 0 in this diagnosis."},
		"not kept":        {task + "/conversations/101/label", "failed", http.StatusConflict, "set aside by the quality checks"},
		"no such task":    {"/tasks/" + uuid.NewString() + "/conversations/1/label", "failed", http.StatusNotFound, "belongs to someone else"},
		"csrf is checked": {task + "/conversations/3/label", "failed", http.StatusForbidden, "security token"},
	} {
		var resp *http.Response
		if name == "csrf is checked" {
			req, err := http.NewRequest(http.MethodPost, alice.BaseURL+c.path, strings.NewReader("outcome="+c.outcome))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp = alice.Send(t, req) // with the session, without its token
		} else {
			resp = htmxForm(t, alice, c.path, c.outcome)
		}
		require.Equal(t, c.status, resp.StatusCode, name)
		require.Contains(t, authtest.Body(t, resp), c.says, name)
	}
	require.Equal(t, 2, b.reviewed(t, id), "only the two labels given")

	// The agents' pages.
	doc = parse(t, alice.Get(t, "/agents"))
	card := testid(doc, "agent")
	require.Equal(t, 1, card.Length())
	require.Equal(t, "Airline agent", words(in(card, "agent-name")))
	require.Regexp(t, `^Detector version 1, trained on 100 labeled conversations \(69 failed, 31 succeeded\) from 1 run\. .* AUROC 0\.\d\d, 95% interval 0\.\d\d–\d\.\d\d\. Counting alone would score messages`,
		words(in(card, "agent-detector")))
	require.Equal(t, 10, in(card, "agent-feature").Length(), "its top features")
	require.Equal(t, 1, testid(doc, "nav-agents").Length(), "linked in the header")
	doc = parse(t, alice.Get(t, fmt.Sprintf("/agents/%d", agent)))
	require.Equal(t, 1, testid(doc, "agent-task").Length())
	require.Contains(t, words(testid(doc, "agent-task")), "Airline, labelled")
	require.Contains(t, words(testid(doc, "agent-task")), "detector version 1")

	doc = parse(t, alice.Get(t, "/tasks/new"))
	require.Equal(t, "Airline agent", testid(doc, "upload-agents").Find("option").AttrOr("value", ""), "the form offers the owner's agents")
	doc = parse(t, alice.Get(t, "/tasks"))
	require.Contains(t, words(testid(doc, "task-agent")), "agent Airline agent")

	// Bob sees none of it and can label nothing.
	for _, path := range []string{fmt.Sprintf("/agents/%d", agent), "/agents/0", "/agents/x"} {
		resp := bob.Get(t, path)
		require.Equal(t, http.StatusNotFound, resp.StatusCode, path)
		require.Contains(t, authtest.Body(t, resp), "There is no agent of yours at this address.")
	}
	require.Zero(t, testid(parse(t, bob.Get(t, "/agents")), "agent").Length())
	resp = htmxForm(t, bob, "/tasks/"+id.String()+"/conversations/3/label?from=list", "failed")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, 2, b.reviewed(t, id))
}

// TestUnlabelledUploadOnThePages reads what the pages say of an upload without labels
// of an agent without a detector: the offline score is evidence, with what it reached
// on the shipped sets; the list most useful to label says its rule and what is needed.
func TestUnlabelledUploadOnThePages(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	id := b.upload(t, b.alice, "Airline, unlabelled", "Airline agent", unlabelledAirline(t))
	alice := b.alice.browser

	doc := parse(t, alice.Get(t, "/tasks/"+id.String()))
	require.Equal(t, "Failure scores come from the offline rules' findings: evidence, not a probability. On the labeled sets Checkup ships, "+
		"they rank a failed conversation above a successful one at AUROC 0.66 (airline) and 0.83 (retail). "+
		"Label conversations to give Airline agent a detector of its own.", words(testid(doc, "failure-source")))
	require.Zero(t, testid(doc, "cluster-estimated").Length(), "nothing estimated without a detector")

	doc = parse(t, alice.Get(t, "/tasks/"+id.String()+"/conversations?sort=to_label"))
	require.Contains(t, words(testid(doc, "to-label-rule")), "While Airline agent has no detector, the list takes one conversation of each kind in turn")
	require.Equal(t, "0 of the 10 failed and 0 of the 10 succeeded", words(testid(doc, "label-needed")))
	require.Equal(t, "Labels for Airline agent's detector: 0 of the 10 failed and 0 of the 10 succeeded it needs.", words(testid(doc, "label-counter")))
	require.Equal(t, "100 conversations without a label.", words(testid(doc, "list-matches")))
	require.Equal(t, 50, testid(doc, "conversation-row").Length())
	require.Contains(t, testid(doc, "next-page").AttrOr("href", ""), "sort=to_label")
	first := testid(doc, "conversation-row").First()
	link := first.Find(`[data-testid="conversation-link"]`).AttrOr("href", "")
	second := testid(doc, "conversation-row").Eq(1).AttrOr("data-seq", "")

	// The conversation leads on to the next in that order, and back to the list.
	doc = parse(t, alice.Get(t, link))
	require.Contains(t, testid(doc, "next-in-list").First().AttrOr("href", ""), "/conversations/"+second+"?")
	require.Equal(t, "n", testid(doc, "next-in-list").First().AttrOr("data-shortcut", ""))
	require.Equal(t, "No outcome label yet: did this conversation fail or succeed?", words(testid(doc, "label-state")))
	require.Equal(t, 1, doc.Find(`script[src="/static/js/shortcuts.js"]`).Length())

	doc = parse(t, alice.Get(t, fmt.Sprintf("/agents/%d", agentOf(t, b, id))))
	require.Equal(t, "10 more failed and 10 more succeeded", words(testid(doc, "agent-needed")))

	resp := alice.Get(t, "/tasks/"+id.String()+"/conversations?sort=to_label&label=failed")
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, words(testid(parse(t, resp), "filter-problem")), "leave the outcome label at Any")
	resp = alice.Get(t, "/tasks/"+id.String()+"/conversations?sort=to_label&after=x")
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

// htmxForm posts outcome to path as htmx does from a label button.
func htmxForm(t *testing.T, c *authtest.Client, path, outcome string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.BaseURL+path, strings.NewReader(url.Values{"outcome": {outcome}}.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("X-CSRF-Token", c.CSRFToken)
	return c.Send(t, req)
}

// labelsCSV is c's labels.csv of task id, without its header.
func labelsCSV(t *testing.T, c *authtest.Client, id uuid.UUID) [][]string {
	t.Helper()
	resp := c.Get(t, "/tasks/"+id.String()+"/labels.csv")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(authtest.Body(t, resp), "\ufeff"))).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"conversation_seq", "conversation_id", "label", "label_source", "reviewed_label", "reviewed_at",
		"failure_score", "estimated_outcome", "link"}, rows[0])
	return rows[1:]
}
