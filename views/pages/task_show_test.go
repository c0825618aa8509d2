package pages_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/views/components"
	"github.com/checkup-dev/checkup/views/pages"
)

func TestTaskPageWhileRunningPolls(t *testing.T) {
	t.Parallel()
	r := sampleReport("running")
	r.Actions, r.Clusters = nil, nil
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r, CSRFToken: "tok"}))

	progress := testid(doc, "task-progress")
	require.Equal(t, 1, progress.Length())
	require.Equal(t, "/tasks/"+taskID+"/progress", progress.AttrOr("hx-get", ""))
	require.Equal(t, "every 2s", progress.AttrOr("hx-trigger", ""))
	require.Equal(t, "outerHTML", progress.AttrOr("hx-swap", ""))
	require.Contains(t, testid(doc, "progress-count").Text(), "37 of 100")
	require.Equal(t, "Diagnosing conversations", testid(doc, "progress-stage").Text())
	require.Equal(t, "step 3 of 7", testid(doc, "progress-step").Text())
	require.Equal(t, "the most urgent are listed when the diagnosis finishes", testid(doc, "actions-listed").Text())
	require.Equal(t, 1, testid(doc, "cancel").Length())
	require.Zero(t, testid(doc, "rerun").Length(), "re-run is offered once the task has finished")
	require.Contains(t, testid(doc, "no-actions").Text(), "when the diagnosis finishes")
	require.Equal(t, "tok", doc.Find(`form[action="/tasks/`+taskID+`/cancel"] input[name="_csrf"]`).AttrOr("value", ""))
}

// A claimed task that has not reported its first stage yet is starting, not queued.
func TestTaskPageOfAClaimedTaskSaysStarting(t *testing.T) {
	t.Parallel()
	r := sampleReport("running")
	r.Task.Stage = taskstate.Queued
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
	require.Equal(t, "Starting…", testid(doc, "progress-stage").Text())
	require.Zero(t, testid(doc, "progress-step").Length())
}

// A task canceled before its quality checks says nothing about what they or the
// failure drivers would have found: no outcome section, no zero counts, no funnel.
func TestTaskPageCanceledEarlyClaimsNoResults(t *testing.T) {
	t.Parallel()
	r := sampleReport("canceled")
	r.Task.Stage = taskstate.Quality
	r.Funnel, r.Actions, r.Clusters, r.RiskSummary = nil, nil, nil, nil
	r.Population = report.Population{Uploaded: 100}
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
	require.Zero(t, testid(doc, "outcomes").Length())
	require.Zero(t, testid(doc, "funnel").Length())
	require.Equal(t, "—", testid(doc, "stat-kept").Find("b").Text())
	require.Equal(t, "—", testid(doc, "stat-analysed").Find("b").Text())
	require.Equal(t, "none, since the diagnosis did not get that far", testid(doc, "actions-listed").Text())
}

func TestTaskPageWhenFinished(t *testing.T) {
	t.Parallel()
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: sampleReport("completed"), CSRFToken: "tok"}))

	require.Zero(t, doc.Find("[hx-trigger]").Length(), "a finished task's page does not poll")
	require.Zero(t, testid(doc, "cancel").Length())
	require.Equal(t, 1, testid(doc, "rerun").Length())
	require.Equal(t, "Support bot, March", testid(doc, "task-title").Text())
	require.Equal(t, "completed", testid(doc, "task-page").AttrOr("data-status", ""))
	require.Equal(t, 1, testid(doc, "offline-label").Length())
	require.Zero(t, testid(doc, "model-badge").Length(), "an offline run names no model")
	require.Contains(t, testid(doc, "analyzer").Text(), "Offline analysis")

	actions := testid(doc, "action")
	require.Equal(t, 2, actions.Length())
	var ranks, types []string
	actions.Each(func(_ int, s *goquery.Selection) {
		ranks = append(ranks, s.AttrOr("data-rank", ""))
		types = append(types, s.Find(`[data-testid="type-badge"]`).First().Text())
	})
	require.Equal(t, []string{"1", "2"}, ranks, "Actions in rank order")
	require.Equal(t, []string{"RISK", "ACTION"}, types)
	first := actions.Eq(0)
	require.Contains(t, first.Find(`[data-testid="action-size"]`).Text(), "4 conversations")
	require.Contains(t, first.Find(`[data-testid="action-size"]`).Text(), "4.3% of the analyzed conversations")
	require.Equal(t, "80", first.Find(`[data-testid="priority-score"]`).Text())
	require.Equal(t, "40", first.Find(`[data-testid="priority-severity"]`).Text())
	require.Equal(t, 2, first.Find(`[data-testid="action-recommendation"] li`).Length())
	link := first.Find(`[data-testid="evidence-link"]`)
	require.Equal(t, "/tasks/"+taskID+"/conversations/7#turn-3", link.AttrOr("href", ""))
	require.Equal(t, "Your card 4242 4242", first.Find(`[data-testid="evidence-quote"]`).Text())
	require.Equal(t, 1, actions.Eq(1).Find(`[data-testid="unverified"]`).Length())

	steps := testid(doc, "funnel-step")
	require.Equal(t, 3, steps.Length())
	require.Equal(t, "5", steps.Eq(1).Find(`[data-testid="funnel-removed"]`).Text())
	require.Equal(t, "0", steps.Eq(0).Find(`[data-testid="funnel-removed"]`).Text(), "a step that removed nothing says 0")
	require.Contains(t, testid(doc, "funnel").Find("th").Text(), "RemovedRemaining", "the words of report.md")
	require.Contains(t, first.Find(`[data-testid="priority"] summary`).Text(), "prevalence")
	require.Equal(t, "95", steps.Eq(2).Find(`[data-testid="funnel-remaining"]`).Text())

	// The priority only orders Actions the rank leaves tied: where it did not, it is
	// not shown, so a higher priority on a lower-ranked card never reads as a contradiction.
	ranked := sampleReport("completed")
	ranked.Actions[1].PriorityDecided = false
	doc, _ = render(t, pages.TaskShow(page, pages.TaskView{Report: ranked}))
	require.Equal(t, 1, testid(doc, "action").Eq(0).Find(`[data-testid="priority"]`).Length())
	require.Zero(t, testid(doc, "action").Eq(1).Find(`[data-testid="priority"]`).Length())
	require.Equal(t, 1, testid(doc, "action").Eq(1).Find(`[data-testid="support"]`).Length(), "what its rank rests on is still said")

	// An Action showing fewer examples than its conversations says how they were chosen;
	// one showing them all does not.
	ranked.Actions[1].Conversations = len(ranked.Actions[1].Evidence)
	doc, _ = render(t, pages.TaskShow(page, pages.TaskView{Report: ranked}))
	require.Contains(t, testid(doc, "action").Eq(0).Find(`[data-testid="action-evidence-chosen"]`).Text(), "At most 3 are shown, of the clearest cases")
	require.Zero(t, testid(doc, "action").Eq(1).Find(`[data-testid="action-evidence-chosen"]`).Length())

	require.Equal(t, 1, testid(doc, "warning").Length())
	require.Contains(t, testid(doc, "warning").Text(), "The answer stayed invalid after one repair.")
	require.Equal(t, "Diagnosing conversations (conversation c3): The answer stayed invalid after one repair.",
		strings.Join(strings.Fields(testid(doc, "warning").Text()), " "), "the stage, its scope, a colon")
	unscoped := sampleReport("completed")
	unscoped.Warnings[0].Scope = ""
	doc, _ = render(t, pages.TaskShow(page, pages.TaskView{Report: unscoped}))
	require.Equal(t, "Diagnosing conversations: The answer stayed invalid after one repair.",
		strings.Join(strings.Fields(testid(doc, "warning").Text()), " "), "no space before the colon")
	require.Equal(t, "90", testid(doc, "first-pass-valid").Text())
	require.Equal(t, "3", testid(doc, "repaired").Text())
	require.Equal(t, "2", testid(doc, "isolated").Text())
	require.Zero(t, testid(doc, "offline-rules").Length(), "answers were repaired: they are counted")
	offline := sampleReport("completed")
	offline.Reliability = report.Reliability{FirstPassValid: 100}
	rules, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: offline}))
	require.Equal(t, "rules", testid(rules, "offline-rules").Text(), "the offline rules' answers need no count of repairs")
	require.Zero(t, testid(rules, "first-pass-valid").Length())
	require.Equal(t, 3, testid(doc, "cluster").Length())
	require.Equal(t, 1, testid(doc, "risk-kind").Length())
	require.Contains(t, strings.Join(strings.Fields(testid(doc, "timings").Text()), " "), "took 4 min 0 s from the upload, 3 min 0 s from the start")

	del := doc.Find(`form[action="/tasks/` + taskID + `/delete"]`)
	require.NotEmpty(t, del.AttrOr("hx-confirm", ""), "htmx asks before deleting")
	require.Equal(t, "/tasks/"+taskID, del.AttrOr("hx-delete", ""))
	for _, d := range []string{"report.json", "actions.csv", "findings.csv", "report.md"} {
		require.Equal(t, 1, doc.Find(`a[href="/tasks/`+taskID+`/`+d+`"]`).Length(), d)
	}
}

func TestTaskPageSaysWhenResumed(t *testing.T) {
	t.Parallel()
	r := sampleReport("running")
	r.Task.Attempt, r.Task.LostCount, r.Task.Resumed = 2, 1, true
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
	require.Contains(t, testid(doc, "task-resumed").Text(), "stopped unexpectedly once; another worker took over")
	require.Contains(t, testid(doc, "progress-resumed").Text(), "attempt 2")
}

func TestProgressFragmentStopsPollingWhenTerminal(t *testing.T) {
	t.Parallel()
	for _, status := range []taskstate.Status{taskstate.Completed, taskstate.Partial, taskstate.InsufficientData, taskstate.Failed, taskstate.Canceled} {
		doc, _ := render(t, components.TaskProgress(components.Progress{TaskID: taskID, Status: status}))
		require.Zero(t, doc.Find("[hx-trigger]").Length(), status)
		require.Zero(t, doc.Find("[hx-get]").Length(), status)
	}
	for _, status := range []taskstate.Status{taskstate.Pending, taskstate.Running} {
		doc, _ := render(t, components.TaskProgress(components.Progress{TaskID: taskID, Status: status}))
		require.Equal(t, "every 2s", testid(doc, "task-progress").AttrOr("hx-trigger", ""), status)
	}
}

// The ranked Actions are summed up in a short table above the cards, and only the most
// urgent three cards show their steps and quotes unfolded.
func TestTaskPageSumsUpTheTopIssues(t *testing.T) {
	t.Parallel()
	r := sampleReport("completed")
	for rank := 3; rank <= 5; rank++ {
		a := r.Actions[1]
		a.Rank = rank
		r.Actions = append(r.Actions, a)
	}
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r}))

	rows := testid(doc, "top-issue")
	require.Equal(t, 5, rows.Length())
	require.Equal(t, "#action-1", rows.Eq(0).Find(`[data-testid="top-issue-link"]`).AttrOr("href", ""))
	require.Equal(t, "Stop showing card numbers", rows.Eq(0).Find(`[data-testid="top-issue-link"]`).Text())
	require.Contains(t, rows.Eq(1).Text(), "22%")
	require.Equal(t, 1, doc.Find(`#action-5`).Length(), "each link has its card")

	cards := testid(doc, "action")
	for i := range 5 {
		_, open := cards.Eq(i).Find(`[data-testid="action-evidence-fold"]`).Attr("open")
		require.Equal(t, i < 3, open, "card %d", i+1)
	}
}

// While a task waits or runs, "How this diagnosis ran" says nothing the next poll
// would contradict; offline analysis says no model is used.
func TestRunDetailsWhileNotFinished(t *testing.T) {
	t.Parallel()
	running := sampleReport("running")
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: running}))
	require.Equal(t, "No model used (offline analysis).", strings.TrimSpace(testid(doc, "usage").Text()))
	require.Zero(t, testid(doc, "attempt").Length(), "no verdict on attempts before the end")

	pending := sampleReport("pending")
	pending.Analysis, pending.Task.Attempt, pending.Task.StartedAt = report.Analysis{}, 0, nil
	doc, _ = render(t, pages.TaskShow(page, pages.TaskView{Report: pending}))
	require.Equal(t, "Chosen when the diagnosis starts.", testid(doc, "analyzer").Text())
	require.Equal(t, "Counted as the diagnosis runs.", strings.TrimSpace(testid(doc, "usage").Text()))
}

// A canceled task is a neutral notice, not an error; a task with too few usable
// conversations says how many are needed and offers no re-run that cannot help.
func TestTaskPageCanceledAndInsufficient(t *testing.T) {
	t.Parallel()
	canceled := sampleReport("canceled")
	canceled.Task.Error = "canceled by its owner"
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: canceled, MinConversations: 5}))
	require.Equal(t, "Canceled by its owner.", testid(doc, "task-canceled").Text())
	require.Zero(t, testid(doc, "task-error").Length())
	require.Equal(t, 1, testid(doc, "rerun").Length())

	few := sampleReport("insufficient_data")
	doc, _ = render(t, pages.TaskShow(page, pages.TaskView{Report: few, MinConversations: 5}))
	require.Zero(t, testid(doc, "rerun").Length())
	require.Contains(t, testid(doc, "insufficient-hint").Text(), "upload at least 5 usable conversations")
}

func TestLLMRunShowsItsModelAtTheTop(t *testing.T) {
	t.Parallel()
	r := sampleReport("completed")
	r.Analysis = report.Analysis{Analyzer: "llm", Label: "LLM analysis", Model: "gpt-4o-mini", PromptVersion: "v3"}
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
	badge := testid(doc, "model-badge")
	require.Equal(t, "model gpt-4o-mini", badge.Text())
	require.Equal(t, 1, badge.Closest(".meta").Length(), "beside the status, at the top")
	require.Zero(t, testid(doc, "offline-label").Length())
}

// TestFoldedActionCardsSayWhatTheyHold: past the first three, an Action card's "What to
// do" and its quotes are folded, and their headings show the first step and the first
// quote with how many more there are.
func TestFoldedActionCardsSayWhatTheyHold(t *testing.T) {
	t.Parallel()
	r := sampleReport("completed")
	first := r.Actions[0]
	r.Actions = nil
	for rank := 1; rank <= 5; rank++ {
		a := first
		a.Rank = rank
		r.Actions = append(r.Actions, a)
	}
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
	cards := testid(doc, "action")
	require.Equal(t, 5, cards.Length())
	third, fourth := cards.Eq(2), cards.Eq(3)
	_, open := third.Find(`[data-testid="action-todo"]`).Attr("open")
	require.True(t, open, "the first three are open")
	_, open = fourth.Find(`[data-testid="action-todo"]`).Attr("open")
	require.False(t, open, "the fourth is folded")
	require.Equal(t, "Mask them. (+1 step)", fourth.Find(`[data-testid="action-todo-preview"]`).Text())
	require.Equal(t, "“Your card 4242 4242”", fourth.Find(`[data-testid="action-evidence-preview"]`).Text())
}

// An expected issue of a labelled upload says how many of its conversations failed,
// with a link to them: behaviour the policy calls for can still go with failures.
func TestExpectedIssueShowsItsOutcomes(t *testing.T) {
	t.Parallel()
	r := sampleReport("completed")
	policy := "policy"
	r.Clusters = append(r.Clusters, report.Cluster{Idx: 3, Type: "ACTION", Title: "Declines what its policy rules out", Conversations: 9,
		Expected: true, ExpectedBy: &policy, OutcomeSplit: report.OutcomeSplit{LabelOutcomes: &report.LabelOutcomes{Failed: 6, Succeeded: 3}}})
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
	require.Equal(t, "(6 labeled failed, see them; 3 succeeded)", strings.Join(strings.Fields(testid(doc, "expected-outcomes").Text()), " "))
	require.Equal(t, "/tasks/"+taskID+"/conversations?cluster=3&label=failed", testid(doc, "expected-failed").AttrOr("href", ""))

	r.Clusters[len(r.Clusters)-1].LabelOutcomes = &report.LabelOutcomes{Succeeded: 9}
	doc, _ = render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
	require.Equal(t, "(none labeled failed; 9 succeeded)", strings.Join(strings.Fields(testid(doc, "expected-outcomes").Text()), " "))
	require.Zero(t, testid(doc, "expected-failed").Length(), "no link to an empty list")
}

// The notice of a mark promises an Action to the next issue only when one waits for it
// (an issue ranks among the Actions that did not when they were written), and says the
// Actions were re-ranked only when they were.
func TestReviewNoticePromisesOnlyAnIssueThatWaits(t *testing.T) {
	t.Parallel()
	r := sampleReport("completed")
	require.Zero(t, pages.Waiting(r))
	r.Clusters[len(r.Clusters)-1].NoAction = report.NoActionIssueSince
	require.Equal(t, 1, pages.Waiting(r), "the issue the mark let in")

	n := pages.ReviewNotice{Marked: true, Title: "Issue 0", NextInLine: true, Reranked: true}
	require.Equal(t, "Marked “Issue 0” as expected, here and in this agent's later diagnoses; the Actions were re-ranked. The next issue in line gets an Action of its own when the diagnosis runs again.", n.Sentence(english(t)))
	n.NextInLine, n.Reranked = false, false
	require.Equal(t, "Marked “Issue 0” as expected, here and in this agent's later diagnoses.", n.Sentence(english(t)), "it had no Action: nothing moved")
	doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r, Reviewed: &n}))
	require.Contains(t, testid(doc, "review-notice").Text(), n.Sentence(english(t)))
	require.Equal(t, 1, testid(doc, "review-undo").Length())
}

// The downloads say how much of the report they hold: all of it once the diagnosis
// completed, what was done before it failed or was canceled, what is done so far while
// it runs.
func TestDownloadsSayHowMuchTheyHold(t *testing.T) {
	t.Parallel()
	for status, want := range map[string]string{
		"completed": "Download: report",
		"partial":   "Download: report",
		"failed":    "Download what was done before it stopped:",
		"canceled":  "Download what was done before it stopped:",
		"running":   "Download what is done so far (the Actions come last):",
		"pending":   "Download what is done so far (the Actions come last):",
	} {
		doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: sampleReport(status)}))
		require.Contains(t, strings.Join(strings.Fields(testid(doc, "downloads").Text()), " "), want, status)
	}
}
