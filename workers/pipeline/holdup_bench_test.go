package pipeline_test

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// The splits BenchmarkActionsHoldUp measures: each shipped labelled set cut by
// scenario (its ids carry it), as the detector's quality is measured.
var holdUpSplits = []struct {
	set string
	cut int // scenarios below it are the labelled half, the others the unseen upload
}{
	{transcripttest.Airline, 13},
	{transcripttest.Retail, 25},
}

// topActions is how many of the first Actions the benchmark holds to the figures.
const topActions = 3

// BenchmarkActionsHoldUp checks that the Actions a PM reads first hold up: each shipped
// labelled set is split by scenario, and the unseen half is uploaded without its
// labels — as a new agent ("no labels": no detector, the Actions ranked by how common
// and severe their issue is at least), and after the labelled half trained the agent's
// detector ("detector", when it has enough labels of each outcome). The labels only
// score: for each of the first three Actions, how many conversations it rests on and
// how many of them failed, against the upload's base rate. It reports the fewest
// conversations and the lowest failure rate over base rate among the three (targets:
// ≥ 3 conversations, clearly above 1×), and logs each Action. Its figures are for
// BENCHMARKS.md:
//
//	go test ./workers/pipeline -run '^$' -bench ActionsHoldUp -benchtime 1x
func BenchmarkActionsHoldUp(b *testing.B) {
	for _, s := range holdUpSplits {
		for _, mode := range []string{"no-labels", "detector"} {
			b.Run(strings.TrimSuffix(s.set, ".jsonl")+"/"+mode, func(b *testing.B) {
				for b.Loop() {
					holdUp(b, s.set, s.cut, mode == "detector")
				}
			})
		}
	}
}

func holdUp(b *testing.B, set string, cut int, withDetector bool) {
	bd := setup(b)
	labelled, unseen := splitByScenario(b, labelledSet(b, set), cut)
	bd.startWorker(b, pipeline.New(bd.pool, offline.New(offline.Options{}), workertest.Options(pipeline.Options{})), workers.Config{})
	if withDetector {
		trained := bd.waitTerminal(b, bd.uploadAs(b, "Agent", labelled), time.Minute)
		if summaryOf(b, trained) == nil {
			b.Logf("%s: the labelled half (%d conversations) trains no detector: too few labels of one outcome", set, len(labelled))
		}
	}
	id := bd.uploadAs(b, "Agent", unlabelled(unseen))
	task := bd.waitTerminal(b, id, time.Minute)
	require.EqualValues(b, "completed", task.Status, task.Error)

	failed := map[string]bool{}
	base := 0
	for _, c := range unseen {
		failed[c.ID] = c.Label == transcript.LabelFailed
		if failed[c.ID] {
			base++
		}
	}
	baseRate := float64(base) / float64(len(unseen))
	rows := bd.report(b, id)
	idOf := map[int32]string{}
	for _, c := range rows.Conversations {
		idOf[c.Seq] = c.ExternalID
	}
	seqs := clusterSeqs(rows)
	fewest, lowest := 0, 0.0
	lines := []string{fmt.Sprintf("%s, %d unseen conversations, %d failed (base rate %.2f); detector: %v",
		set, len(unseen), base, baseRate, len(task.FailureModel) > 0)}
	shown := 0
	for _, a := range rows.Actions {
		if a.Rank == nil || shown == topActions {
			continue
		}
		shown++
		n, f := len(seqs[a.ClusterIdx]), 0
		for _, seq := range seqs[a.ClusterIdx] {
			if failed[idOf[seq]] {
				f++
			}
		}
		rate := float64(f) / float64(n)
		if shown == 1 || n < fewest {
			fewest = n
		}
		if shown == 1 || rate/baseRate < lowest {
			lowest = rate / baseRate
		}
		b.ReportMetric(float64(n), fmt.Sprintf("a%d_conversations", shown))
		b.ReportMetric(rate, fmt.Sprintf("a%d_failed_share", shown))
		lines = append(lines, fmt.Sprintf("#%d [%s] %s: %d failed of %d (%.2f, %.2f× base)", *a.Rank, a.ClusterType, a.ClusterTitle, f, n, rate, rate/baseRate))
	}
	b.ReportMetric(baseRate, "base_rate")
	b.ReportMetric(float64(fewest), "top3_fewest_conversations")
	b.ReportMetric(lowest, "top3_lowest_lift")
	b.Log(strings.Join(lines, "\n"))
}

// labelledSet reads a labelled set of testdata/ as an upload parses it, labels kept.
func labelledSet(tb testing.TB, name string) []transcript.Conversation {
	tb.Helper()
	f, err := os.Open(transcripttest.Path(name))
	require.NoError(tb, err)
	defer f.Close()
	var convs []transcript.Conversation
	_, err = ingest.Parse(f, ingest.Limits{}, func(c transcript.Conversation) error {
		convs = append(convs, c)
		return nil
	})
	require.NoError(tb, err)
	return convs
}

// splitByScenario cuts a set by the scenario its ids carry ("task07"): those below cut
// first, never a scenario on both sides.
func splitByScenario(tb testing.TB, convs []transcript.Conversation, cut int) (below, rest []transcript.Conversation) {
	tb.Helper()
	re := regexp.MustCompile(`task(\d+)`)
	for _, c := range convs {
		m := re.FindStringSubmatch(c.ID)
		require.NotNil(tb, m, c.ID)
		n, err := strconv.Atoi(m[1])
		require.NoError(tb, err)
		if n < cut {
			below = append(below, c)
		} else {
			rest = append(rest, c)
		}
	}
	return below, rest
}
