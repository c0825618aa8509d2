package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
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
	trained   bool
	labels    int
	changed   int
}

// teachFortyLabels uploads the airline set without its labels through the API, labels
// 40 of its conversations with their own outcomes (from the set's metadata), ten at a
// time in the suggested order — or, given draw, in an order drawn at random, to
// compare — waiting after each ten for the agent's learning task to run in the worker,
// and reads the task as it was scored again. The order suggested is drawn from the
// task's id, so each upload gets its own, and 40 labels may hold fewer than the
// minimum of one outcome: the result then has no detector (trained false), unless
// untilTrained, which labels on in the suggested order until it has.
func teachFortyLabels(tb testing.TB, draw *rand.Rand, untilTrained bool) fortyLabels {
	tb.Helper()
	b := setupLabels(tb)
	id := b.upload(tb, b.alice, "Airline, unlabelled", "Airline agent", unlabelledAirline(tb))
	truth := airlineOutcomes(tb)
	before := scoresOf(tb, b, id)
	var drawn []string
	if draw != nil {
		drawn = slices.Sorted(maps.Keys(truth))
		draw.Shuffle(len(drawn), func(i, j int) { drawn[i], drawn[j] = drawn[j], drawn[i] })
	}

	labelled := map[string]bool{}
	for len(labelled) < 40 || untilTrained && !b.trained(tb, id) {
		var batch []string
		if draw != nil {
			batch = drawn[len(labelled) : len(labelled)+fortyLabelsBatch]
		} else {
			_, page, body := b.conversations(tb, b.alice, id, fmt.Sprintf("sort=to_label&limit=%d", fortyLabelsBatch))
			require.NotEmpty(tb, page.Conversations, "%s", body)
			for _, c := range page.Conversations {
				batch = append(batch, c.ID)
			}
		}
		for _, cid := range batch {
			require.False(tb, labelled[cid], "%s is suggested again once labelled", cid)
			b.label(tb, b.alice, id, labelIn{cid, outcome(truth[cid])})
			labelled[cid] = true
		}
		waitLearned(tb, b, id)
	}

	r := reportOf(tb, b, id)
	out := fortyLabels{task: id, labels: len(labelled)}
	if out.trained = r.FailureModel != nil; !out.trained {
		return out
	}
	out.model = *r.FailureModel
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
	require.Len(tb, afterScores, 100-len(labelled))
	out.before, out.after = stats.AUROC(beforeScores, failed), stats.AUROC(afterScores, failed)
	out.baselines = detector.Baselines(counts, failed)
	return out
}

// trained reports whether the agent of task id has a detector.
func (b labelsBundle) trained(tb testing.TB, id uuid.UUID) bool {
	tb.Helper()
	var has bool
	require.NoError(tb, b.pool.QueryRow(context.Background(), `
		SELECT a.failure_model_version IS NOT NULL FROM agent a JOIN analysis_task t ON t.agent_id = a.id WHERE t.id = $1`, id).Scan(&has))
	return has
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
// API in the suggested order (and on in that order, should those 40 hold fewer than
// the minimum of one outcome), and the task scored again by the learning task the
// labels asked for — report.json then names the detector, trained on those labels, and
// the failure scores are its own. The figures on the others are BenchmarkFortyLabels';
// the test logs them.
func TestFortyLabelsTeachTheAgent(t *testing.T) {
	t.Parallel()
	r := teachFortyLabels(t, nil, true)
	require.True(t, r.trained, "the task was scored by the agent's detector")
	require.Equal(t, "Airline agent", r.model.Agent)
	require.Equal(t, r.labels, r.model.TrainedOn, "trained on the labels given")
	require.GreaterOrEqual(t, r.labels, 40)
	require.GreaterOrEqual(t, r.model.Failed, detector.MinPerOutcome)
	require.GreaterOrEqual(t, r.model.Succeeded, detector.MinPerOutcome)
	require.Greater(t, r.changed, 50, "the detector's scores replaced the offline ones")
	t.Logf("%d labels: AUROC on the other %d %.2f (the offline score before: %.2f); counting alone: %s; cross-validated %.2f [%.2f, %.2f] on the 40",
		r.labels, 100-r.labels, r.after, r.before, baselinesText(r.baselines), r.model.CVAUROC, r.model.CVInterval[0], r.model.CVInterval[1])
}

// fortyLabelRuns is how many uploads BenchmarkFortyLabels labels in each way: the
// suggested order is drawn from the task's id, so each upload is another draw.
const fortyLabelRuns = 10

// BenchmarkFortyLabels measures what 40 labels teach an agent (teachFortyLabels), over
// fortyLabelRuns uploads, for the order the list most useful to label suggests
// (suggested) and for orders drawn at random (random): of the AUROC of its detector on
// the 60 conversations not labelled, the median, lowest and highest; the medians of
// the offline score's AUROC on them before, of what counting messages, user turns and
// tool calls scores on them, and of the detector's cross-validated estimate; the share
// of runs whose 95% interval held the AUROC on the 60; and the share of runs whose 40
// labels held the minimum of each outcome, so that a detector was trained at all (the
// other figures are of those). Only the metrics count; ns/op includes setting up a
// database and diagnosing each upload.
//
//	go test ./app/web -run '^$' -bench FortyLabels -benchtime 1x
func BenchmarkFortyLabels(b *testing.B) {
	for _, way := range []string{"suggested", "random"} {
		b.Run(way, func(b *testing.B) {
			var runs []fortyLabels
			for range b.N {
				runs = nil
				for seed := range fortyLabelRuns {
					var draw *rand.Rand
					if way == "random" {
						draw = rand.New(rand.NewPCG(uint64(seed), 0))
					}
					runs = append(runs, teachFortyLabels(b, draw, false))
				}
			}
			reportFortyLabels(b, runs)
		})
	}
}

// reportFortyLabels reports the figures of BenchmarkFortyLabels over runs.
func reportFortyLabels(b *testing.B, runs []fortyLabels) {
	var after, before, cv []float64
	baselines := map[string][]float64{}
	held := 0
	for _, r := range runs {
		if !r.trained {
			continue
		}
		after, before, cv = append(after, r.after), append(before, r.before), append(cv, r.model.CVAUROC)
		for _, base := range r.baselines {
			baselines[base.Name] = append(baselines[base.Name], base.AUROC)
		}
		if r.after >= r.model.CVInterval[0] && r.after <= r.model.CVInterval[1] {
			held++
		}
	}
	b.ReportMetric(float64(len(after))/float64(len(runs)), "share-trained")
	if len(after) == 0 {
		return
	}
	slices.Sort(after)
	b.ReportMetric(median(after), "auroc-other-60-median")
	b.ReportMetric(after[0], "auroc-other-60-lowest")
	b.ReportMetric(after[len(after)-1], "auroc-other-60-highest")
	b.ReportMetric(median(before), "auroc-offline-before-median")
	for name, v := range baselines {
		b.ReportMetric(median(v), "auroc-"+strings.ReplaceAll(name, "_", "-")+"-median")
	}
	b.ReportMetric(median(cv), "cv-auroc-median")
	b.ReportMetric(float64(held)/float64(len(after)), "share-interval-held")
}

// median is the middle of v (the mean of the two middle values of an even count).
func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
