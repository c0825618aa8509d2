package web_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"github.com/checkup-dev/checkup/db/locale/localetest"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/report/reporttest"
)

// TestMarkExpectedNowAndInTheNextRun marks the cluster of the first ACTION-type Action
// expected behaviour: at once it is listed as expected with the reason, its Action is
// gone and the others are ranked 1..N in the order they had; report.json says who
// marked it and why. The owner's next run marks the same issue expected and writes no
// Action for it; another owner's run of the same conversations is untouched. Without
// the CSRF token, or as another user, nothing changes; the undo gives the ranks back.
func TestMarkExpectedNowAndInTheNextRun(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	convs := loopSample(t)
	id := b.diagnose(t, b.alice, "Support, March", convs)
	before := taskReport(t, b.alice, id)
	marked := firstActionCluster(t, before)
	mark := clusterPath(id, marked.ClusterIdx, "expected")
	category := clusterOf(t, before, marked.ClusterIdx).Category
	issuesBefore := requireIssuesFollowMarks(t, b, id, category)

	// Refused: no CSRF token, another user, a running task, a cluster that does not
	// exist, a reason too long, taking back a mark never made. Nothing changes.
	req, err := http.NewRequest(http.MethodPost, b.url+mark, strings.NewReader("reason=x"))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	require.Equal(t, http.StatusForbidden, b.alice.Send(t, req).StatusCode, "no CSRF token")
	require.Equal(t, http.StatusNotFound, b.bob.PostForm(t, mark, url.Values{"reason": {"x"}}).StatusCode, "Bob")
	resp := b.alice.PostForm(t, clusterPath(id, 999, "expected"), nil)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Contains(t, authtest.Body(t, resp), "There is no issue 999 in this diagnosis.")
	resp = b.alice.PostForm(t, mark, url.Values{"reason": {strings.Repeat("é", 501)}})
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, authtest.Body(t, resp), "The reason is 501 characters long; keep it to 500.")
	running := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Status: "running"})
	resp = b.alice.PostForm(t, clusterPath(running.ID, 0, "expected"), nil)
	require.Equal(t, http.StatusConflict, resp.StatusCode)
	require.Contains(t, authtest.Body(t, resp), "once the diagnosis has finished")
	resp = b.alice.PostForm(t, clusterPath(id, marked.ClusterIdx, "expected/delete"), nil)
	require.Equal(t, http.StatusConflict, resp.StatusCode, "a mark that was never made is not taken back")
	require.Contains(t, authtest.Body(t, resp), "You have not marked this issue as expected, so there is nothing to take back.")
	require.Equal(t, before.Actions, taskReport(t, b.alice, id).Actions, "nothing changed")
	require.Empty(t, rules(t, b.alice), "no rule was made")

	// Marked.
	resp = b.alice.PostForm(t, mark, url.Values{"reason": {"Our policy forbids it <b>on purpose</b>"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/tasks/"+id.String()+"#expected", resp.Header.Get("Location"))
	after := taskReport(t, b.alice, id)
	c := clusterOf(t, after, marked.ClusterIdx)
	require.True(t, c.Expected)
	require.Equal(t, "owner", *c.ExpectedBy)
	require.Equal(t, "Our policy forbids it <b>on purpose</b>", c.ExpectedReason)
	require.Zero(t, c.ActionRank)
	requireRerankedWithout(t, before, after, marked.ClusterIdx)

	doc := parse(t, b.alice.Get(t, "/tasks/"+id.String()))
	expected := testid(doc, "expected-cluster").FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.Contains(s.Text(), c.Title)
	})
	require.Equal(t, 1, expected.Length(), "listed under expected behavior")
	require.Contains(t, expected.Find(`[data-testid="expected-reason"]`).Text(), "Our policy forbids it <b>on purpose</b>", "the reason, as text")
	for _, a := range after.Actions {
		require.NotEqual(t, marked.Title, a.Title, "its Action is gone from the page's report")
	}
	require.Len(t, rules(t, b.alice), 1)
	require.Empty(t, rules(t, b.bob), "Bob has no rules")
	require.NotEmpty(t, changedIssues(issuesBefore, requireIssuesFollowMarks(t, b, id, category)),
		"the list no longer counts the marked issue's findings")
	require.Equal(t, "marked as expected by you", findingStanding(t, b, id, marked.ClusterIdx), "and neither does the conversation's page")

	// The next run of the same conversations marks the same issue, and writes no Action
	// for it; Bob's run of them is untouched.
	resp = b.alice.PostForm(t, "/tasks/"+id.String()+"/rerun", nil)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	next := uuid.MustParse(strings.TrimPrefix(resp.Header.Get("Location"), "/tasks/"))
	b.waitFinished(t, b.alice, next)
	nextReport := taskReport(t, b.alice, next)
	same := sameIssue(t, nextReport, c)
	require.True(t, same.Expected, "the next run marks it")
	require.Equal(t, "owner", *same.ExpectedBy)
	require.Equal(t, c.ExpectedReason, same.ExpectedReason)
	requireRanks(t, nextReport.Actions)
	for _, a := range nextReport.Actions {
		require.NotEqual(t, same.Idx, a.ClusterIdx, "no Action is written for it")
	}
	for _, f := range nextReport.FailedActions {
		require.NotEqual(t, same.Idx, f.ClusterIdx)
	}
	var unassigned, withEvidence int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM task_finding WHERE task_id = $1 AND cluster_idx IS NULL),
		(SELECT count(*) FROM task_cluster WHERE task_id = $1 AND idx = $2 AND evidence IS NOT NULL)`,
		next, same.Idx).Scan(&unassigned, &withEvidence))
	require.Zero(t, unassigned, "the rule marks the issue, and its findings are still in it")
	require.Equal(t, 1, withEvidence, "the marked issue shows its evidence")
	requireIssuesFollowMarks(t, b, next, category)
	rule := testid(parse(t, b.alice.Get(t, "/tasks/"+next.String())), "expected-cluster").FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.Contains(s.Text(), same.Title)
	}).Find(`[data-testid="expected-rule"]`)
	require.Contains(t, strings.Join(strings.Fields(rule.Text()), " "), "It is marked by the rule you made in Support, March, the diagnosis of ",
		"the next run says which diagnosis its rule was made on")
	require.Equal(t, "/tasks/"+id.String(), rule.Find(`[data-testid="rule-source"]`).AttrOr("href", ""))
	require.NotContains(t, testid(doc, "expected-cluster").Text(), "the rule you made in", "the diagnosis it was made on does not point to itself")

	bobs := b.diagnose(t, b.bob, "Support, March", convs)
	bobReport := taskReport(t, b.bob, bobs)
	theirs := sameIssue(t, bobReport, c)
	require.False(t, theirs.Expected, "another owner's run is unaffected")
	require.Equal(t, len(before.Actions), len(bobReport.Actions))
	require.Equal(t, marked.Rank, actionOf(t, bobReport, theirs.Idx).Rank)

	// The undo gives the ranks back and removes the rule.
	resp = b.alice.PostForm(t, clusterPath(id, marked.ClusterIdx, "expected/delete"), nil)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	undone := taskReport(t, b.alice, id)
	require.False(t, clusterOf(t, undone, marked.ClusterIdx).Expected)
	require.Nil(t, clusterOf(t, undone, marked.ClusterIdx).ExpectedBy)
	require.Equal(t, before.Actions, undone.Actions, "the Actions and their ranks as they were")
	require.Empty(t, rules(t, b.alice), "the rule is gone with the mark")
	require.Equal(t, issuesBefore, requireIssuesFollowMarks(t, b, id, category), "the list as it was")
	require.Empty(t, findingStanding(t, b, id, marked.ClusterIdx), "an issue again")

	// In the next run the issue was expected when the Actions were written: taken back,
	// it is an issue again with no Action, and the notice says how to get one.
	resp = htmxSend(t, b.alice, http.MethodDelete, clusterPath(next, same.Idx, "expected"), "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	doc = parse(t, resp)
	require.Contains(t, strings.Join(strings.Fields(testid(doc, "review-notice").Text()), " "),
		"is an issue again, here and in this agent's later diagnoses. It has no Action in this diagnosis. It ranks among the issues that get an Action now, but did not when the Actions were written: run the diagnosis again, and it gets one.")
	require.Equal(t, 1, testid(doc, "compare-select").Length(), "the swapped page still offers the compare picker")
	again := clusterOf(t, taskReport(t, b.alice, next), same.Idx)
	require.False(t, again.Expected)
	require.Equal(t, report.NoActionIssueSince, again.NoAction, "report.json says why it has no Action")
	require.Equal(t, "run again", testid(doc, "cluster").FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.Contains(s.Text(), again.Title)
	}).Find(`[data-testid="no-action"] summary`).Text(), "and so does its row")
}

// TestMarkExpectedWithHTMX: htmx gets the task page's body to swap in, with the cluster
// moved and the Actions re-ranked, and takes the mark back with DELETE.
func TestMarkExpectedWithHTMX(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	id := b.diagnose(t, b.alice, "Support", loopSample(t))
	before := taskReport(t, b.alice, id)
	marked := firstActionCluster(t, before)

	resp := htmxSend(t, b.alice, http.MethodPost, clusterPath(id, marked.ClusterIdx, "expected"), "reason=")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body := authtest.Body(t, resp)
	require.NotContains(t, body, "<html", "a fragment, not a page")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	require.NoError(t, err)
	require.Equal(t, 1, testid(doc, "task-page").Length())
	ranks := testid(doc, "action").Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("data-rank", "") })
	require.Len(t, ranks, len(before.Actions)-1)
	for i, r := range ranks {
		require.Equal(t, strconv.Itoa(i+1), r)
	}
	require.Contains(t, testid(doc, "expected").Text(), marked.ClusterTitle)
	require.Contains(t, testid(doc, "expected-reason").Text(), "Marked as expected by you, without a reason.")
	require.Contains(t, testid(doc, "expected-rule").Text(), "whichever agent they come from")
	require.Equal(t, "/settings/expected", testid(doc, "expected-rule").Find("a").AttrOr("href", ""))
	requireRerankedWithout(t, before, taskReport(t, b.alice, id), marked.ClusterIdx)
	notice := testid(doc, "review-notice")
	require.Equal(t, 1, notice.Length(), "the swap says what it did")
	require.Equal(t, "status", notice.AttrOr("role", ""))
	require.Contains(t, strings.Join(strings.Fields(notice.Text()), " "), "Marked “"+marked.ClusterTitle+"” as expected, here and in this agent's later diagnoses; the Actions were re-ranked. The next issue in line gets an Action of its own when the diagnosis runs again.")
	var next []int
	for _, c := range taskReport(t, b.alice, id).Clusters {
		if c.NoAction == report.NoActionIssueSince {
			next = append(next, c.Idx)
			require.Equal(t, report.NoActionRankedBelow, clusterOf(t, before, c.Idx).NoAction, "it ranked below the chosen issues before")
		}
	}
	require.Len(t, next, 1, "the next issue in line ranks among them now, without an Action until the next run")
	listed := testid(parse(t, b.alice.Get(t, "/tasks/"+id.String())), "actions-listed").Text()
	require.Regexp(t, `^\d+ of \d+ are listed, and running the diagnosis again writes 1 more$`, listed,
		"the mark freed a place among the ten, so the next run writes one more Action, not one in place of another")

	// Marking one that had no Action frees no place and moves no rank: the notice
	// promises nothing of the kind, and the plain form's flash says the same. Marked
	// again, nothing moves either.
	var below report.Cluster
	for _, c := range taskReport(t, b.alice, id).Clusters {
		if c.NoAction == report.NoActionRankedBelow && !c.IsRisk() {
			below = c
			break
		}
	}
	require.NotEmpty(t, below.Title, "the sample has an issue below the chosen ones")
	for range 2 {
		resp = htmxSend(t, b.alice, http.MethodPost, clusterPath(id, below.Idx, "expected"), "reason=")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Equal(t, "Marked “"+below.Title+"” as expected, here and in this agent's later diagnoses. Undo",
			strings.Join(strings.Fields(testid(parse(t, resp), "review-notice").Text()), " "))
	}
	resp = htmxSend(t, b.alice, http.MethodDelete, clusterPath(id, below.Idx, "expected"), "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	undo := notice.Find("form")
	require.Equal(t, clusterPath(id, marked.ClusterIdx, "expected"), undo.AttrOr("hx-delete", ""), "its Undo takes the mark back")
	require.Equal(t, clusterPath(id, marked.ClusterIdx, "expected/delete"), undo.AttrOr("action", ""))
	require.Equal(t, "Undo", undo.Find(`[data-testid="review-undo"]`).Text())
	require.Zero(t, testid(parse(t, b.alice.Get(t, "/tasks/"+id.String())), "review-notice").Length(), "only the swap confirms; the page itself does not")

	resp = htmxSend(t, b.alice, http.MethodDelete, clusterPath(id, marked.ClusterIdx, "expected"), "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	doc, err = goquery.NewDocumentFromReader(strings.NewReader(authtest.Body(t, resp)))
	require.NoError(t, err)
	require.Contains(t, strings.Join(strings.Fields(testid(doc, "review-notice").Text()), " "), "“"+marked.ClusterTitle+"” is an issue again, here and in this agent's later diagnoses; the Actions were re-ranked.")
	require.Zero(t, testid(doc, "review-undo").Length())
	require.Equal(t, before.Actions, taskReport(t, b.alice, id).Actions)
	resp = htmxSend(t, b.bob, http.MethodDelete, clusterPath(id, marked.ClusterIdx, "expected"), "")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	policy := 0
	for _, c := range before.Clusters {
		if c.ExpectedBy == nil || *c.ExpectedBy != "policy" {
			continue
		}
		policy++
		require.NotEmpty(t, c.ExpectedReason, "the policy's sentence is the reason")
		for _, method := range []string{http.MethodPost, http.MethodDelete} {
			resp := htmxSend(t, b.alice, method, clusterPath(id, c.Idx, "expected"), "")
			require.Equal(t, http.StatusConflict, resp.StatusCode, method)
			require.Contains(t, authtest.Body(t, resp), "expected by the agent's own policy", method)
		}
	}
	require.NotZero(t, policy, "the sample has behaviour its policy calls for")
	require.Equal(t, before.Actions, taskReport(t, b.alice, id).Actions)

	// The conversation list's issue filter names expected behaviour as such, never by
	// its type: it is never an Action.
	labels := map[string]string{}
	testid(parse(t, b.alice.Get(t, "/tasks/"+id.String()+"/conversations")), "filter-cluster").Find("option").
		Each(func(_ int, o *goquery.Selection) { labels[o.AttrOr("value", "")] = o.Text() })
	for _, c := range before.Clusters {
		label := labels[strconv.Itoa(c.Idx)]
		if c.Expected {
			require.True(t, strings.HasPrefix(label, "Expected behavior: "+c.Title+" ("), label)
		} else {
			require.True(t, strings.HasPrefix(label, c.Type+": "+c.Title+" ("), label)
		}
		require.NotContains(t, label, "— expected")
	}
}

// TestMarkingWhenNoIssueWaitsPromisesNone: in a task whose issues all have an Action,
// a mark that takes one out re-ranks the rest, and the notice promises no next issue
// in line, since none waits for the place.
func TestMarkingWhenNoIssueWaitsPromisesNone(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	convs := make([]transcript.Conversation, 12)
	for i := range convs {
		last := "This is ridiculous, I asked twice already."
		if i%2 == 0 {
			last = "Never mind, I'll call the airport instead."
		}
		convs[i] = transcript.Conversation{ID: fmt.Sprintf("c%d", i+1), Messages: []transcript.Message{
			{Role: transcript.RoleUser, Content: fmt.Sprintf("I need to change reservation R%d.", i+1)},
			{Role: transcript.RoleAssistant, Content: "I need your reservation ID first."},
			{Role: transcript.RoleUser, Content: last},
			{Role: transcript.RoleAssistant, Content: "I understand."},
		}}
	}
	id := b.diagnose(t, b.alice, "Few issues", convs)
	before := taskReport(t, b.alice, id)
	for _, c := range before.Clusters {
		require.True(t, c.Expected || c.ActionRank > 0, "every issue of the task has an Action: %q", c.Title)
	}
	marked := firstActionCluster(t, before)

	resp := htmxSend(t, b.alice, http.MethodPost, clusterPath(id, marked.ClusterIdx, "expected"), "reason=")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	notice := strings.Join(strings.Fields(testid(parse(t, resp), "review-notice").Text()), " ")
	require.Contains(t, notice, "the Actions were re-ranked", "the Action after it moved up")
	require.NotContains(t, notice, "next issue in line", "no issue waits for the place")
}

// TestExpectedRulesSettings: the settings page lists the owner's rules only; removing
// one is a 404 for anyone else, and once removed the owner's later runs no longer mark
// the issue, while the run it was marked in keeps its mark.
func TestExpectedRulesSettings(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	convs := loopSample(t)[:60]
	older := b.diagnose(t, b.alice, "Support", convs)
	id := b.diagnose(t, b.alice, "Support", convs)
	before := taskReport(t, b.alice, id)
	marked := firstActionCluster(t, before)
	require.Equal(t, http.StatusSeeOther, b.alice.PostForm(t, clusterPath(id, marked.ClusterIdx, "expected"),
		url.Values{"reason": {"Policy 4.2"}}).StatusCode)
	// Marked again in an older diagnosis of the same agent, which the rule did not mark: one rule, with
	// the latest reason, still made where it was first. Neither diagnosis says it was
	// marked by a rule from elsewhere.
	again := firstActionCluster(t, taskReport(t, b.alice, older))
	require.Equal(t, marked.Title, again.Title)
	require.Equal(t, http.StatusSeeOther, b.alice.PostForm(t, clusterPath(older, again.ClusterIdx, "expected"),
		url.Values{"reason": {"Policy 4.2, section 3"}}).StatusCode)
	for _, task := range []uuid.UUID{id, older} {
		require.NotContains(t, testid(parse(t, b.alice.Get(t, "/tasks/"+task.String())), "expected-rule").Text(), "the rule you made in")
	}

	doc := parse(t, b.alice.Get(t, "/settings/expected"))
	rule := testid(doc, "expected-rule")
	require.Equal(t, 1, rule.Length())
	require.Equal(t, marked.ClusterTitle, rule.Find(`[data-testid="rule-title"]`).Text())
	require.Equal(t, "Policy 4.2, section 3", rule.Find(`[data-testid="rule-reason"]`).Text())
	require.Equal(t, "expected", rule.Find(`[data-testid="rule-expected"]`).Text())
	require.Equal(t, "/tasks/"+id.String(), rule.Find(`[data-testid="rule-source"]`).AttrOr("href", ""))
	var started time.Time
	require.NoError(t, b.pool.QueryRow(t.Context(), `SELECT created_at FROM analysis_task WHERE id = $1`, id).Scan(&started))
	require.Contains(t, strings.Join(strings.Fields(rule.Text()), " "), "in Support, the diagnosis of "+localetest.English(t).Time(started),
		"the source's start tells it from its re-runs, which share its title")
	ruleID := rule.AttrOr("data-rule-id", "")
	require.Equal(t, 1, testid(parse(t, b.bob.Get(t, "/settings/expected")), "no-rules").Length(), "Bob sees none")

	require.Equal(t, http.StatusNotFound, b.bob.PostForm(t, "/settings/expected/"+ruleID+"/delete", nil).StatusCode)
	require.Equal(t, http.StatusNotFound, htmxSend(t, b.bob, http.MethodDelete, "/settings/expected/"+ruleID, "").StatusCode)
	require.Equal(t, http.StatusNotFound, b.alice.PostForm(t, "/settings/expected/nope/delete", nil).StatusCode)
	require.Len(t, rules(t, b.alice), 1, "still there")

	resp := htmxSend(t, b.alice, http.MethodDelete, "/settings/expected/"+ruleID, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Empty(t, rules(t, b.alice))
	require.True(t, clusterOf(t, taskReport(t, b.alice, id), marked.ClusterIdx).Expected, "the marked run keeps its mark")
	require.Contains(t, strings.Join(strings.Fields(testid(parse(t, b.alice.Get(t, "/tasks/"+id.String())), "expected-rule").Text()), " "),
		"Your rule for this issue has been removed, so this agent's later diagnoses no longer mark it",
		"and no longer promises a rule")
	later := b.diagnose(t, b.alice, "Support", convs)
	require.False(t, sameIssue(t, taskReport(t, b.alice, later), clusterOf(t, before, marked.ClusterIdx)).Expected,
		"a later run no longer marks it")
}

// htmxSend sends a request the way htmx does, with a form body when form is not empty.
func htmxSend(t *testing.T, c *authtest.Client, method, path, form string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, c.BaseURL+path, strings.NewReader(form))
	require.NoError(t, err)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("X-CSRF-Token", c.CSRFToken)
	if form != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return c.Send(t, req)
}

func clusterPath(id uuid.UUID, idx int, rest string) string {
	return "/tasks/" + id.String() + "/clusters/" + strconv.Itoa(idx) + "/" + rest
}

func taskReport(t *testing.T, c *authtest.Client, id uuid.UUID) report.Report {
	t.Helper()
	resp := c.Get(t, "/tasks/"+id.String()+"/report.json")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var r report.Report
	require.NoError(t, json.Unmarshal([]byte(authtest.Body(t, resp)), &r))
	return r
}

// firstActionCluster is the Action of the highest-ranked ACTION cluster, which has
// Actions ranked after it.
func firstActionCluster(t *testing.T, r report.Report) report.Action {
	t.Helper()
	requireRanks(t, r.Actions)
	for i, a := range r.Actions {
		if a.Type == "ACTION" && i < len(r.Actions)-1 {
			return a
		}
	}
	t.Fatal("no ACTION cluster with an Action after it")
	return report.Action{}
}

func requireRanks(t *testing.T, actions []report.Action) {
	t.Helper()
	require.NotEmpty(t, actions)
	for i, a := range actions {
		require.Equal(t, i+1, a.Rank, "ranks 1..N without gaps")
	}
}

// requireRerankedWithout checks that after holds the Actions of before but cluster
// idx's, in the same order, ranked 1..N.
func requireRerankedWithout(t *testing.T, before, after report.Report, idx int) {
	t.Helper()
	var want []int
	for _, a := range before.Actions {
		if a.ClusterIdx != idx {
			want = append(want, a.ClusterIdx)
		}
	}
	var got []int
	for _, a := range after.Actions {
		got = append(got, a.ClusterIdx)
	}
	require.Equal(t, want, got, "the others, in the order they had")
	requireRanks(t, after.Actions)
	for _, f := range after.FailedActions {
		require.NotEqual(t, idx, f.ClusterIdx)
	}
}

func clusterOf(t *testing.T, r report.Report, idx int) report.Cluster {
	t.Helper()
	for _, c := range r.Clusters {
		if c.Idx == idx {
			return c
		}
	}
	t.Fatalf("no cluster %d", idx)
	return report.Cluster{}
}

func actionOf(t *testing.T, r report.Report, idx int) report.Action {
	t.Helper()
	for _, a := range r.Actions {
		if a.ClusterIdx == idx {
			return a
		}
	}
	t.Fatalf("no Action for cluster %d", idx)
	return report.Action{}
}

// sameIssue is the cluster of r with c's type, category and title.
func sameIssue(t *testing.T, r report.Report, c report.Cluster) report.Cluster {
	t.Helper()
	for _, o := range r.Clusters {
		if o.Type == c.Type && o.Category == c.Category && o.Title == c.Title {
			return o
		}
	}
	t.Fatalf("no cluster %q in the other run", c.Title)
	return report.Cluster{}
}

// rules are the rule ids the settings page lists for c.
func rules(t *testing.T, c *authtest.Client) []string {
	t.Helper()
	doc := parse(t, c.Get(t, "/settings/expected"))
	return testid(doc, "expected-rule").Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("data-rule-id", "") })
}

// A risk marked expected leaves the risks of the owner's later diagnoses too, so the
// mark takes a reason: without one it is refused with a sentence and nothing changes;
// the form asks for it.
func TestARiskIsMarkedExpectedOnlyWithAReason(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	id := b.diagnose(t, b.alice, "Support", loopSample(t)[:60])
	var risk report.Cluster
	for _, c := range taskReport(t, b.alice, id).Clusters {
		if c.IsRisk() && !c.Expected {
			risk = c
			break
		}
	}
	require.NotEmpty(t, risk.Title, "the sample has a risk issue")
	form := parse(t, b.alice.Get(t, "/tasks/"+id.String())).Find("#reason-" + strconv.Itoa(risk.Idx))
	_, required := form.Attr("required")
	require.True(t, required, "the form asks for the reason")
	require.Equal(t, `.*\S.*`, form.AttrOr("pattern", ""), "and for more than spaces")

	for _, reason := range []string{"", "   "} {
		resp := b.alice.PostForm(t, clusterPath(id, risk.Idx, "expected"), url.Values{"reason": {reason}})
		require.Equal(t, http.StatusBadRequest, resp.StatusCode)
		require.Contains(t, authtest.Body(t, resp), "A risk is marked as expected only with a reason")
	}
	require.False(t, clusterOf(t, taskReport(t, b.alice, id), risk.Idx).Expected, "nothing changed")
	require.Empty(t, rules(t, b.alice))

	require.Equal(t, http.StatusSeeOther, b.alice.PostForm(t, clusterPath(id, risk.Idx, "expected"),
		url.Values{"reason": {"Our test accounts always get business"}}).StatusCode)
	require.True(t, clusterOf(t, taskReport(t, b.alice, id), risk.Idx).Expected)

	// findings.csv says the marked issue's findings are expected behavior.
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(authtest.Body(t, b.alice.Get(t, "/tasks/"+id.String()+"/findings.csv")), "\ufeff"))).ReadAll()
	require.NoError(t, err)
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	marked := 0
	for _, row := range rows[1:] {
		if row[col["issue_idx"]] == strconv.Itoa(risk.Idx) {
			require.Equal(t, "true", row[col["expected"]])
			marked++
		}
	}
	require.Equal(t, risk.FindingCount, marked)
}
