package pipeline_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/stats"
)

// TestLabelledSampleSplitsEveryCluster uploads the sample with its outcome labels and
// checks what the labels add: every cluster's split is exact (recounted here from the
// labels), its p-value is Fisher's exact test on that split, the first ACTION explains
// more failures than its size predicts, the check of the analysis against the labels is
// stored, and the failure drivers hold their thresholds.
func TestLabelledSampleSplitsEveryCluster(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var convs []transcript.Conversation
	labels := map[int]transcript.Label{}
	failed, succeeded := 0, 0
	for i, l := range transcripttest.LabelledSample(t) {
		c := l.Conversation
		c.Label = transcript.LabelSucceeded
		if !l.Success {
			c.Label = transcript.LabelFailed
			failed++
		} else {
			succeeded++
		}
		labels[i+1] = c.Label
		convs = append(convs, c)
	}
	id := b.upload(t, convs)
	task := b.runTask(t, id, offlineProbe(), pipeline.Options{})
	require.Equal(t, taskstate.Completed, task.Status, task.Error)

	rows := b.report(t, id)
	require.NotEmpty(t, rows.Clusters)
	seqs := clusterSeqs(rows)
	for _, c := range rows.Clusters {
		var f, s int
		for _, seq := range seqs[c.Idx] {
			if labels[int(seq)] == transcript.LabelFailed {
				f++
			} else {
				s++
			}
		}
		require.Equal(t, int32(f), c.LabelFailed, c.Title)
		require.Equal(t, int32(s), c.LabelSucceeded, c.Title)
		require.Zero(t, c.LabelUnlabelled)
		require.NotNil(t, c.PValue)
		require.InDelta(t, stats.FisherExact(stats.Table{FailedWith: f, SucceededWith: s, FailedWithout: failed - f, SucceededWithout: succeeded - s}), *c.PValue, 1e-9, c.Title)
		require.GreaterOrEqual(t, *c.QValue, *c.PValue)
	}

	first := firstAction(t, rows)
	require.Positive(t, *first.ExcessFailures, "the first ACTION is over-represented among failures: %s", first.Title)

	var check pipeline.LabelCheck
	stored := b.task(t, id)
	require.NoError(t, json.Unmarshal(stored.LabelCheck, &check))
	require.Equal(t, 100, check.Labelled)
	require.Equal(t, failed, check.Failed)
	require.NotNil(t, check.AUROC)
	require.Greater(t, *check.AUROC, 0.5, "the offline analysis orders failures above successes better than chance")

	drivers, err := b.q.ListTaskDrivers(t.Context(), b.pool, dbsqlc.ListTaskDriversParams{TaskID: id, OwnerUserID: b.owner.UserID()})
	require.NoError(t, err)
	for _, d := range drivers {
		require.GreaterOrEqual(t, d.Failed, int32(3))
		require.LessOrEqual(t, d.QValue, 0.05)
		require.Len(t, d.ExampleIds, len(d.ExampleSeqs))
	}
}

// firstAction is the ACTION cluster with the first rank.
func firstAction(t *testing.T, rows store.ReportRows) dbsqlc.ListTaskClustersRow {
	t.Helper()
	best := int32(0)
	var idx int32 = -1
	for _, a := range rows.Actions {
		if a.Rank != nil && a.ClusterType == "ACTION" && (idx < 0 || *a.Rank < best) {
			best, idx = *a.Rank, a.ClusterIdx
		}
	}
	require.GreaterOrEqual(t, idx, int32(0))
	for _, c := range rows.Clusters {
		if c.Idx == idx {
			return c
		}
	}
	t.Fatalf("no cluster %d", idx)
	return dbsqlc.ListTaskClustersRow{}
}
