package web_test

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/report/reporttest"
	"github.com/checkup-dev/checkup/workers/cluster"
)

// TestMarkNotExpectedNowAndInTheNextRun says of an issue the sample's policy seems to
// call for that it is not expected: at once it is an issue with the owner's reason and
// the policy sentence it was matched to, the written Actions keep their ranks (it has
// none of its own), findings.csv no longer calls its findings expected, and a rule says
// so. The owner's next run lists the same issue as an issue; another owner's run is
// untouched. Without the CSRF token, as another user, for an issue that is not the
// policy's, or with a reason too long, nothing changes; taking it back makes it the
// policy's again and removes the rule.
func TestMarkNotExpectedNowAndInTheNextRun(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	convs := loopSample(t)
	id := b.diagnose(t, b.alice, "Support, March", convs)
	before := taskReport(t, b.alice, id)
	policy := policyCluster(t, before)
	mark := clusterPath(id, policy.Idx, "not-expected")
	issuesBefore := requireIssuesFollowMarks(t, b, id, policy.Category)
	require.Equal(t, "expected by the policy", findingStanding(t, b, id, policy.Idx))

	req, err := http.NewRequest(http.MethodPost, b.url+mark, strings.NewReader("reason=x"))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	require.Equal(t, http.StatusForbidden, b.alice.Send(t, req).StatusCode, "no CSRF token")
	require.Equal(t, http.StatusNotFound, b.bob.PostForm(t, mark, nil).StatusCode, "Bob")
	issue := firstActionCluster(t, before)
	resp := b.alice.PostForm(t, clusterPath(id, issue.ClusterIdx, "not-expected"), nil)
	require.Equal(t, http.StatusConflict, resp.StatusCode)
	require.Contains(t, authtest.Body(t, resp), "Only an issue the agent's own policy seems to call for can be marked as not expected; this one is an issue already.")
	resp = b.alice.PostForm(t, mark, url.Values{"reason": {strings.Repeat("x", 501)}})
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, authtest.Body(t, resp), "The reason is 501 characters long; keep it to 500.")
	require.Equal(t, before.Clusters, taskReport(t, b.alice, id).Clusters, "nothing changed")
	require.Empty(t, rules(t, b.alice), "no rule was made")

	resp = b.alice.PostForm(t, mark, url.Values{"reason": {"The agent may <i>share</i> this"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/tasks/"+id.String()+"#clusters", resp.Header.Get("Location"))
	after := taskReport(t, b.alice, id)
	c := clusterOf(t, after, policy.Idx)
	require.False(t, c.Expected)
	require.Nil(t, c.ExpectedBy)
	require.True(t, c.PolicyOverruled)
	require.Equal(t, "The agent may <i>share</i> this", c.ExpectedReason)
	require.Equal(t, policy.Policies, c.Policies, "the sentence it was matched to is still named")
	require.Equal(t, before.Actions, after.Actions, "it has no Action in this run and pushes no written one out")
	require.NotEmpty(t, c.NoAction, "report.json says why it has no Action")
	short, long := report.NoActionWords(localetest.English(t), c)

	page := b.alice.Get(t, "/tasks/"+id.String())
	doc := parse(t, page)
	require.Equal(t, "Marked “"+policy.Title+"” as not expected: it is an issue now, here and in this agent's later diagnoses. It has no Action in this diagnosis. "+long,
		testid(doc, "flash").Text(), "the Actions kept their ranks, and the flash does not say otherwise")
	row := testid(doc, "cluster").FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.Find(`[data-testid="overruled"]`).Length() > 0
	})
	require.Equal(t, 1, row.Length(), "listed among the issues, with the owner's word")
	said := strings.Join(strings.Fields(row.Find(`[data-testid="overruled"]`).Text()), " ")
	require.Contains(t, said, "You said this is not expected: The agent may <i>share</i> this.", "the reason, as text")
	require.Contains(t, said, strings.Join(strings.Fields(policy.Policies[0]), " "))
	require.Zero(t, row.Find(`[data-testid="mark-expected"]`).Length(), "offered to take back, not to mark expected")
	require.Equal(t, 1, row.Find(`[data-testid="unmark-not-expected"]`).Length())
	require.Equal(t, short, row.Find(`[data-testid="no-action"] summary`).Text())
	require.Equal(t, long, row.Find(`[data-testid="no-action-why"]`).Text(), "said in the row, which a phone can open too")
	require.Zero(t, testid(doc, "expected-cluster").FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.Contains(s.Text(), c.Title)
	}).Length(), "no longer under expected behavior")
	require.NotEmpty(t, changedIssues(issuesBefore, requireIssuesFollowMarks(t, b, id, policy.Category)),
		"the list counts the overruled issue's findings")
	require.Equal(t, "an issue: you said the policy does not make it expected", findingStanding(t, b, id, policy.Idx),
		"and so does the conversation's page")

	resp = b.alice.PostForm(t, clusterPath(id, policy.Idx, "expected"), nil)
	require.Equal(t, http.StatusConflict, resp.StatusCode, "marked expected only by taking the word back")
	require.Contains(t, authtest.Body(t, resp), "take that back to make it expected again")

	rows := 0
	for _, row := range findingsCSV(t, b.alice, id) {
		if row["issue_idx"] == strconv.Itoa(c.Idx) {
			require.Equal(t, "false", row["expected"], "its findings are an issue's")
			rows++
		}
	}
	require.GreaterOrEqual(t, rows, c.Conversations, "findings.csv has the issue's findings, at least one for each of its conversations")
	settings := parse(t, b.alice.Get(t, "/settings/expected"))
	require.Equal(t, 1, testid(settings, "expected-rule").Length())
	require.Equal(t, "not expected", testid(settings, "rule-not-expected").Text())
	require.Zero(t, testid(settings, "rule-expected").Length(), "one badge, the right one")

	// The next run of the same conversations lists the same issue as an issue, with the
	// owner's reason; Bob's run of them is untouched.
	resp = b.alice.PostForm(t, "/tasks/"+id.String()+"/rerun", nil)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	next := uuid.MustParse(strings.TrimPrefix(resp.Header.Get("Location"), "/tasks/"))
	b.waitFinished(t, b.alice, next)
	nextReport := taskReport(t, b.alice, next)
	same := sameIssue(t, nextReport, c)
	require.False(t, same.Expected, "the next run lists it as an issue")
	require.True(t, same.PolicyOverruled)
	require.Equal(t, c.ExpectedReason, same.ExpectedReason)
	requireRanks(t, nextReport.Actions)
	var unassigned int
	require.NoError(t, b.pool.QueryRow(t.Context(),
		`SELECT count(*) FROM task_finding WHERE task_id = $1 AND cluster_idx IS NULL`, next).Scan(&unassigned))
	require.Zero(t, unassigned, "its findings, still the policy's, are in it")
	requireIssuesFollowMarks(t, b, next, policy.Category)
	said = strings.Join(strings.Fields(testid(parse(t, b.alice.Get(t, "/tasks/"+next.String())), "overruled").Text()), " ")
	require.Regexp(t, `The rule you made in Support, March, the diagnosis of [^.]+ UTC says so here\.`, said, "the next run says which diagnosis its rule was made on")
	bobs := b.diagnose(t, b.bob, "Support, March", convs)
	require.True(t, sameIssue(t, taskReport(t, b.bob, bobs), c).Expected, "another owner's run is unaffected")

	// Taken back with htmx: the policy's again, here; the rule is gone, so a later run
	// leaves it to the policy too.
	resp = htmxSend(t, b.alice, http.MethodDelete, clusterPath(id, policy.Idx, "not-expected"), "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, strings.Join(strings.Fields(testid(parse(t, resp), "review-notice").Text()), " "),
		"is expected by the agent's policy again, here and in this agent's later diagnoses.")
	undone := clusterOf(t, taskReport(t, b.alice, id), policy.Idx)
	require.True(t, undone.Expected)
	require.Equal(t, "policy", *undone.ExpectedBy)
	require.False(t, undone.PolicyOverruled)
	require.Equal(t, policy.ExpectedReason, undone.ExpectedReason, "the policy's sentence is its reason again")
	require.Empty(t, rules(t, b.alice), "the rule is gone with the word")
	require.Equal(t, issuesBefore, requireIssuesFollowMarks(t, b, id, policy.Category), "the list as it was")
	require.Equal(t, "expected by the policy", findingStanding(t, b, id, policy.Idx), "the policy's again")
	require.True(t, clusterOf(t, taskReport(t, b.alice, next), same.Idx).PolicyOverruled, "the next run keeps what it was told")
	require.Contains(t, strings.Join(strings.Fields(testid(parse(t, b.alice.Get(t, "/tasks/"+next.String())), "overruled").Text()), " "),
		"Your rule for this issue has been removed", "and no longer promises a rule")
}

// TestMarkNotExpectedWithHTMX: htmx gets the task page's body with the issue moved to
// the issues, and a notice whose Undo takes the word back.
func TestMarkNotExpectedWithHTMX(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	id := b.diagnose(t, b.alice, "Support", loopSample(t))
	policy := policyCluster(t, taskReport(t, b.alice, id))

	resp := htmxSend(t, b.alice, http.MethodPost, clusterPath(id, policy.Idx, "not-expected"), "reason=")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	doc := parse(t, resp)
	notice := testid(doc, "review-notice")
	require.Contains(t, strings.Join(strings.Fields(notice.Text()), " "),
		"Marked “"+policy.Title+"” as not expected: it is an issue now, here and in this agent's later diagnoses. It has no Action in this diagnosis.")
	undo := notice.Find("form")
	require.Equal(t, clusterPath(id, policy.Idx, "not-expected"), undo.AttrOr("hx-delete", ""))
	require.Equal(t, clusterPath(id, policy.Idx, "not-expected/delete"), undo.AttrOr("action", ""))
	require.Contains(t, testid(doc, "overruled").Text(), "You said this is not expected.")

	resp = htmxSend(t, b.bob, http.MethodDelete, clusterPath(id, policy.Idx, "not-expected"), "")
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "Bob")
	resp = b.alice.PostForm(t, clusterPath(id, policy.Idx, "not-expected/delete"), nil)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/tasks/"+id.String()+"#expected", resp.Header.Get("Location"))
	require.True(t, clusterOf(t, taskReport(t, b.alice, id), policy.Idx).Expected)
	resp = b.alice.PostForm(t, clusterPath(id, policy.Idx, "not-expected/delete"), nil)
	require.Equal(t, http.StatusConflict, resp.StatusCode, "taken back twice: the second time there is nothing to take back")
	require.Contains(t, authtest.Body(t, resp), "nothing to take back")
}

// policyCluster is the first cluster of r the agent's policy calls for.
func policyCluster(t *testing.T, r report.Report) report.Cluster {
	t.Helper()
	for _, c := range r.Clusters {
		if c.ExpectedBy != nil && *c.ExpectedBy == "policy" && len(c.Policies) > 0 {
			return c
		}
	}
	t.Fatal("the sample has no behaviour its policy calls for")
	return report.Cluster{}
}

// findingsCSV is c's findings.csv of task id, a map of column to cell per row.
func findingsCSV(t *testing.T, c *authtest.Client, id uuid.UUID) []map[string]string {
	t.Helper()
	body := strings.TrimPrefix(authtest.Body(t, c.Get(t, "/tasks/"+id.String()+"/findings.csv")), "\ufeff")
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	require.NoError(t, err)
	out := make([]map[string]string, 0, len(rows)-1)
	for _, row := range rows[1:] {
		m := map[string]string{}
		for i, name := range rows[0] {
			m[name] = row[i]
		}
		out = append(out, m)
	}
	return out
}

// TestNotExpectedRefusals: "not expected" and its take-back refuse, with a message that
// says why and changing nothing, an issue that does not exist, a running task, an issue
// the owner marked expected themselves, taking back what was never said, and a word
// that one of the owner's rules from another diagnosis says the opposite of. Saying it
// twice only changes the reason.
func TestNotExpectedRefusals(t *testing.T) {
	t.Parallel()
	b := setupLoop(t)
	id := b.diagnose(t, b.alice, "Support", loopSample(t))
	before := taskReport(t, b.alice, id)
	policy := policyCluster(t, before)
	issue := firstActionCluster(t, before)
	refused := func(path, message string) {
		t.Helper()
		resp := b.alice.PostForm(t, path, nil)
		require.Equal(t, http.StatusConflict, resp.StatusCode, path)
		require.Contains(t, authtest.Body(t, resp), message, path)
	}

	resp := b.alice.PostForm(t, clusterPath(id, 999, "not-expected"), nil)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Contains(t, authtest.Body(t, resp), "There is no issue 999 in this diagnosis.")
	running := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Status: "running"})
	refused(clusterPath(running.ID, 0, "not-expected"), "once the diagnosis has finished")
	refused(clusterPath(id, issue.ClusterIdx, "not-expected/delete"), "You have not said that this issue is not expected, so there is nothing to take back.")

	// A rule of the owner's from another diagnosis marks the policy's issue expected, in
	// other words (a title that matches, normalised otherwise): saying it is not would
	// leave two rules that contradict each other.
	alike := strings.Replace(policy.Title, " ", " repeatedly ", 1)
	_, matches := cluster.TitleMatch(alike, policy.Title)
	require.True(t, matches && cluster.NormalTitle(alike) != cluster.NormalTitle(policy.Title), "%q says the same in other words", alike)
	_, err := b.pool.Exec(t.Context(), `INSERT INTO expected_rule (owner_user_id, type, category, normal_title, title, expected)
		VALUES ($1, $2, $3, $4, $5, true)`, b.alice.User.ID, policy.Type, policy.Category, cluster.NormalTitle(alike), alike)
	require.NoError(t, err)
	refused(clusterPath(id, policy.Idx, "not-expected"), "Your rule for this issue, made on a diagnosis before, says the opposite.")
	require.Equal(t, before.Clusters, taskReport(t, b.alice, id).Clusters, "nothing changed")
	require.Equal(t, []bool{true}, ruleWords(t, b), "the rule still marks it expected")
	_, err = b.pool.Exec(t.Context(), `DELETE FROM expected_rule WHERE owner_user_id = $1`, b.alice.User.ID)
	require.NoError(t, err)

	// Said twice, it keeps the latest reason and one rule.
	require.Equal(t, http.StatusSeeOther, b.alice.PostForm(t, clusterPath(id, policy.Idx, "not-expected"), url.Values{"reason": {"first"}}).StatusCode)
	require.Equal(t, http.StatusSeeOther, b.alice.PostForm(t, clusterPath(id, policy.Idx, "not-expected"), url.Values{"reason": {"second"}}).StatusCode)
	require.Equal(t, "second", clusterOf(t, taskReport(t, b.alice, id), policy.Idx).ExpectedReason)
	require.Len(t, rules(t, b.alice), 1)

	// The other way round: the "not expected" rule stands for the same issue wherever it
	// is, so marking an issue of that kind expected is refused too.
	_, err = b.pool.Exec(t.Context(), `UPDATE expected_rule SET type = $2, category = $3, normal_title = $4 WHERE owner_user_id = $1`,
		b.alice.User.ID, issue.Type, clusterOf(t, before, issue.ClusterIdx).Category, cluster.NormalTitle(issue.ClusterTitle))
	require.NoError(t, err)
	refused(clusterPath(id, issue.ClusterIdx, "expected"), "Your rule for this issue, made on a diagnosis before, says the opposite.")
	require.False(t, clusterOf(t, taskReport(t, b.alice, id), issue.ClusterIdx).Expected, "nothing changed")
	require.Equal(t, []bool{false}, ruleWords(t, b), "the rule still says not expected")

	// An issue the owner marked expected is theirs to take back, not the policy's.
	other := before.Actions[len(before.Actions)-1].ClusterIdx
	require.Equal(t, http.StatusSeeOther, b.alice.PostForm(t, clusterPath(id, other, "expected"), url.Values{"reason": {"fine"}}).StatusCode)
	refused(clusterPath(id, other, "not-expected"), "You marked this issue as expected yourself: take your mark back to make it an issue again.")
	refused(clusterPath(id, other, "not-expected/delete"), "You have not said that this issue is not expected")
	require.Equal(t, "owner", *clusterOf(t, taskReport(t, b.alice, id), other).ExpectedBy)
}

// ruleWords are Alice's rules, whether each marks its issue expected, oldest first.
func ruleWords(t *testing.T, b loopBundle) []bool {
	t.Helper()
	rows, err := b.pool.Query(t.Context(), `SELECT expected FROM expected_rule WHERE owner_user_id = $1 ORDER BY id`, b.alice.User.ID)
	require.NoError(t, err)
	words, err := pgx.CollectRows(rows, pgx.RowTo[bool])
	require.NoError(t, err)
	return words
}
