package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/workers/detector"
	"github.com/checkup-dev/checkup/workers/stats"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// fortyLabelsBatch is how many suggestions the scenario labels before it waits for the
// agent to learn from them: the suggestions after a batch read the scores the new
// detector gave, as a PM's next page of the list would.
const fortyLabelsBatch = 10

// fortyLabels is what 40 labels, given through the API in the order the list most
// useful to label suggests, taught the agent of an unlabelled upload of the airline
// set: on the other 60 conversations, the AUROC of the offline score before and of the
// detector's after, beside what counting alone scores on them; the detector's summary;
// and how many failure scores changed.
type fortyLabels struct {
	task      uuid.UUID
	before    float64
	after     float64
	baselines []detector.Baseline
	model     detector.Summary
	changed   int
}

// teachFortyLabels uploads the airline set without its labels through the API, labels
// 40 of its conversations with their own outcomes (from the set's metadata), ten at a
// time in the suggested order, waiting after each ten for the agent's learning task to
// run in the worker, and reads the task as it was scored again.
func teachFortyLabels(tb testing.TB) fortyLabels {
	tb.Helper()
	b := setupLabels(tb)
	id := b.upload(tb, b.alice, "Airline, unlabelled", "Airline agent", unlabelledAirline(tb))
	truth := airlineOutcomes(tb)
	before := scoresOf(tb, b, id)

	labelled := map[string]bool{}
	for len(labelled) < 40 {
		_, page, body := b.conversations(tb, b.alice, id, fmt.Sprintf("sort=to_label&limit=%d", fortyLabelsBatch))
		require.NotEmpty(tb, page.Conversations, "%s", body)
		for _, c := range page.Conversations {
			require.False(tb, labelled[c.ID], "%s is suggested again once labelled", c.ID)
			b.label(tb, b.alice, id, labelIn{c.ID, outcome(truth[c.ID])})
			labelled[c.ID] = true
		}
		waitLearned(tb, b, id)
	}

	r := reportOf(tb, b, id)
	require.NotNil(tb, r.FailureModel, "the task was scored by the agent's detector")
	out := fortyLabels{task: id, model: *r.FailureModel}
	var beforeScores, afterScores []float64
	var failed []bool
	var counts []detector.Counts
	sizes := map[string]detector.Counts{}
	for _, l := range transcripttest.LabelledSample(tb) {
		s := l.Conversation.Sizes()
		sizes[l.Conversation.ID] = detector.Counts{Messages: s.Turns, UserTurns: s.UserTurns, ToolCalls: s.ToolCalls}
	}
	for _, c := range r.Conversations {
		require.NotNil(tb, c.FailureScore, c.ID)
		if *c.FailureScore != before[c.ID] {
			out.changed++
		}
		if labelled[c.ID] {
			require.Equal(tb, truth[c.ID], *c.Label, c.ID)
			continue
		}
		beforeScores, afterScores = append(beforeScores, before[c.ID]), append(afterScores, *c.FailureScore)
		failed, counts = append(failed, truth[c.ID] == "failed"), append(counts, sizes[c.ID])
	}
	require.Len(tb, afterScores, 60)
	out.before, out.after = stats.AUROC(beforeScores, failed), stats.AUROC(afterScores, failed)
	out.baselines = detector.Baselines(counts, failed)
	return out
}

// waitLearned waits until no learning task of the agent of task id waits or runs.
func waitLearned(tb testing.TB, b labelsBundle, id uuid.UUID) {
	tb.Helper()
	workertest.WaitFor(tb, 2*time.Minute, "the agent to learn from its labels", func() bool {
		n := b.learningTasks(tb, id)
		return n["pending"]+n["running"] == 0
	})
}

// scoresOf is each conversation's failure score in task id, by its export id.
func scoresOf(tb testing.TB, b labelsBundle, id uuid.UUID) map[string]float64 {
	tb.Helper()
	_, page, body := b.conversations(tb, b.alice, id, "limit=500")
	out := map[string]float64{}
	for _, c := range page.Conversations {
		require.NotNil(tb, c.FailureScore, "%s", body)
		out[c.ID] = *c.FailureScore
	}
	return out
}

// reportOf is task id's report.json through the API.
func reportOf(tb testing.TB, b labelsBundle, id uuid.UUID) report.Report {
	tb.Helper()
	resp := b.alice.api.Do(tb, http.MethodGet, "/api/v1/tasks/"+id.String()+"/report.json", nil, "")
	body := b.checked(tb, http.MethodGet, "/api/v1/tasks/:id/report.json", resp)
	require.Equal(tb, http.StatusOK, resp.StatusCode)
	var r report.Report
	require.NoError(tb, json.Unmarshal(body, &r))
	return r
}

// baselinesText is baselines as a line of the log: "messages 0.61, …".
func baselinesText(bs []detector.Baseline) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = fmt.Sprintf("%s %.2f", b.Name, b.AUROC)
	}
	return strings.Join(parts, ", ")
}

// TestFortyLabelsTeachTheAgent is the PM's loop end to end on the real server: an
// unlabelled upload of the airline set, 40 of its conversations labelled through the
// API in the suggested order, and the task scored again by the learning task the
// labels asked for — report.json then names the detector, trained on those 40, and the
// failure scores are its own. The figure on the other 60 is BenchmarkFortyLabels'; the
// test logs it.
func TestFortyLabelsTeachTheAgent(t *testing.T) {
	t.Parallel()
	r := teachFortyLabels(t)
	require.Equal(t, "Airline agent", r.model.Agent)
	require.Equal(t, 40, r.model.TrainedOn, "trained on the 40 labels")
	require.Equal(t, 40, r.model.Failed+r.model.Succeeded)
	require.GreaterOrEqual(t, r.model.Failed, detector.MinPerOutcome)
	require.GreaterOrEqual(t, r.model.Succeeded, detector.MinPerOutcome)
	require.Greater(t, r.changed, 50, "the detector's scores replaced the offline ones")
	t.Logf("40 labels: AUROC on the other 60 %.2f (the offline score before: %.2f); counting alone: %s; cross-validated %.2f [%.2f, %.2f] on the 40",
		r.after, r.before, baselinesText(r.baselines), r.model.CVAUROC, r.model.CVInterval[0], r.model.CVInterval[1])
}

// BenchmarkFortyLabels measures what 40 labels teach an agent (teachFortyLabels): the
// AUROC of its detector on the 60 conversations not labelled, beside the offline score's
// before and what counting messages, user turns and tool calls scores on the same 60,
// and the detector's cross-validated estimate with its interval. Only the metrics count;
// ns/op includes setting up a database and diagnosing the upload.
//
//	go test ./app/web -run '^$' -bench FortyLabels -benchtime 1x
func BenchmarkFortyLabels(b *testing.B) {
	var r fortyLabels
	for range b.N {
		r = teachFortyLabels(b)
	}
	b.ReportMetric(r.after, "auroc-other-60")
	b.ReportMetric(r.before, "auroc-offline-before")
	for _, base := range r.baselines {
		b.ReportMetric(base.AUROC, "auroc-"+strings.ReplaceAll(base.Name, "_", "-"))
	}
	b.ReportMetric(r.model.CVAUROC, "cv-auroc")
	b.ReportMetric(r.model.CVInterval[0], "cv-low")
	b.ReportMetric(r.model.CVInterval[1], "cv-high")
}
