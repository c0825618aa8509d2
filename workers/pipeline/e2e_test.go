package pipeline_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/workers/cluster"
	"github.com/checkup-dev/checkup/workers/quality"
	"github.com/checkup-dev/checkup/workers/risk"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/pipeline"
)

// TestSampleEndToEnd uploads the 100 airline conversations and lets the real worker
// run the pipeline with the offline analyzer: the stored report has a funnel, risk
// flags, clusters and ranked Actions whose evidence quotes are in the transcripts.
func TestSampleEndToEnd(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.uploadSample(t)
	p := offlineProbe()
	task := b.runTask(t, id, p, pipeline.Options{})

	require.EqualValues(t, "completed", task.Status, task.Error)
	require.EqualValues(t, taskstate.Finishing, task.Stage)
	cfg := storedConfig(t, task)
	require.Equal(t, "offline", cfg.Analyzer.Name)
	require.Equal(t, "offline analysis", cfg.Analyzer.Label)
	require.Equal(t, 2, cfg.DiagnosisConcurrency)
	require.Equal(t, 2, cfg.ActionConcurrency)
	require.Equal(t, 5, cfg.MinConversations)

	rows := b.report(t, id)
	var funnel quality.Funnel
	require.NoError(t, json.Unmarshal(task.Funnel, &funnel))
	require.Equal(t, 100, funnel.Uploaded())
	require.Equal(t, "kept", funnel.Steps[len(funnel.Steps)-1].Step)
	kept := funnel.Kept()
	require.Positive(t, kept)

	var summary pipeline.RiskSummary
	require.NoError(t, json.Unmarshal(task.RiskSummary, &summary))
	require.Equal(t, kept, summary.Screened)
	require.Positive(t, summary.Flagged)
	require.Equal(t, kept, summary.Selected, "no budget: every kept conversation is diagnosed")
	flagged := 0
	for _, c := range rows.Conversations {
		var flags []risk.Flag
		require.NoError(t, json.Unmarshal(c.RiskFlags, &flags))
		if len(flags) > 0 {
			flagged++
		}
		if c.QcStatus == taskstate.QCKept {
			require.Equal(t, taskstate.DiagnosisDone, c.DiagnosisStatus, "conversation %s", c.ExternalID)
			require.Equal(t, "first_pass", *c.DiagnosisPass)
		} else {
			require.Equal(t, taskstate.DiagnosisSkipped, c.DiagnosisStatus)
		}
	}
	require.Equal(t, summary.Flagged, flagged)
	require.Equal(t, int32(kept), task.FirstPassValid)
	require.Zero(t, task.Repaired+task.Isolated)
	require.Equal(t, kept, p.diagnoses(), "one analyzer call per kept conversation")

	require.NotEmpty(t, rows.Findings)
	require.NotEmpty(t, rows.Clusters)
	for _, f := range rows.Findings {
		require.NotNil(t, f.ClusterIdx, "every finding is in a cluster")
	}
	ranked := requireRanked(t, rows.Actions)
	require.NotEmpty(t, ranked)
	require.Len(t, rows.Actions, len(cluster.SelectCandidates(clustersOf(rows))))
	require.Equal(t, len(rows.Actions), p.actionCalls())

	// Every evidence quote the Actions show is in its turn of the transcript: offline
	// quotes are exact substrings, so each is verified.
	convs := map[string]transcript.Conversation{}
	for _, c := range sample(t) {
		convs[c.ID] = c
	}
	actionClusters := map[int32]bool{}
	for _, a := range rows.Actions {
		actionClusters[a.ClusterIdx] = true
	}
	quotes := 0
	for _, e := range rows.Evidence {
		if !actionClusters[e.ClusterIdx] {
			continue
		}
		var ev []analyzer.Evidence
		require.NoError(t, json.Unmarshal(e.Evidence, &ev))
		for _, q := range ev {
			conv := convs[e.ExternalID]
			msg, ok := conv.Turn(q.Turn)
			require.True(t, ok, "%s turn %d", e.ExternalID, q.Turn)
			require.Contains(t, analyzer.TurnText(msg), q.Quote, "%s turn %d", e.ExternalID, q.Turn)
			require.True(t, q.Verified)
			quotes++
		}
	}
	require.Positive(t, quotes)

	// The dashboard's report reads what the pipeline stored.
	rep, err := report.Build(rows, time.Now(), localetest.English(t))
	require.NoError(t, err)
	require.Len(t, rep.Actions, len(ranked))
	require.Equal(t, kept, rep.Population.Analysed)
	require.NotEmpty(t, rep.Actions[0].Evidence)
	require.Contains(t, rep.Actions[0].PriorityParts.Formula, "priorityScore")
}

func clustersOf(rows store.ReportRows) []cluster.Cluster {
	out := make([]cluster.Cluster, len(rows.Clusters))
	for i, r := range rows.Clusters {
		out[i] = cluster.Cluster{Idx: int(r.Idx), Type: analyzer.FindingType(r.Type), Title: r.Title,
			PriorityScore: float64(r.PriorityScore), ConversationCount: int(r.Conversations)}
	}
	return out
}

// TestTooFewConversationsEndInsufficientData ends a task whose kept population is
// below MIN_CONVERSATIONS before any analyzer call.
func TestTooFewConversationsEndInsufficientData(t *testing.T) {
	t.Parallel()
	b := setup(t)
	convs := sample(t)[:4]
	convs = append(convs, transcript.Conversation{ID: "empty", Messages: []transcript.Message{{Role: transcript.RoleUser, Content: "hello?"}}})
	id := b.upload(t, convs)
	p := offlineProbe()
	task := b.runTask(t, id, p, pipeline.Options{})
	require.EqualValues(t, "insufficient_data", task.Status)
	require.Contains(t, task.Error, "Only 4 of the 5 uploaded conversations")
	require.Zero(t, p.diagnoses()+p.actionCalls(), "no analyzer call")
	var funnel quality.Funnel
	require.NoError(t, json.Unmarshal(task.Funnel, &funnel))
	require.Equal(t, 4, funnel.Kept())
}

// TestIsolatedConversations: an analyzer error isolates its conversation — marked,
// named in a warning, left out — and the task ends partial with the count.
func TestIsolatedConversations(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.uploadSample(t)
	p := offlineProbe()
	bad := map[string]bool{}
	for i, c := range sample(t) {
		if i%25 == 3 {
			bad[c.ID] = true
		}
	}
	p.onDiagnose = func(_ context.Context, conv transcript.Conversation) error {
		if bad[conv.ID] {
			return analyzer.ErrInvalidOutput
		}
		return nil
	}
	task := b.runTask(t, id, p, pipeline.Options{})
	require.EqualValues(t, "partial", task.Status)
	require.Contains(t, task.Error, "4 of ")
	require.Equal(t, int32(4), task.Isolated)

	named := map[string]bool{}
	for _, w := range b.warnings(t, id) {
		if w.Stage == taskstate.Diagnosis {
			named[strings.TrimPrefix(w.Scope, "conversation ")] = true
			require.Contains(t, w.Message, "could not be diagnosed")
		}
	}
	require.Equal(t, bad, named)
	for _, c := range b.report(t, id).Conversations {
		require.Equal(t, bad[c.ExternalID], c.DiagnosisStatus == taskstate.DiagnosisIsolated, c.ExternalID)
	}
}

// TestNothingDiagnosedFails: when no conversation can be diagnosed the task fails with
// a reason for its owner.
func TestNothingDiagnosedFails(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.upload(t, sample(t)[:6])
	p := offlineProbe()
	p.onDiagnose = func(context.Context, transcript.Conversation) error { return analyzer.ErrInvalidOutput }
	task := b.runTask(t, id, p, pipeline.Options{})
	require.EqualValues(t, "failed", task.Status)
	require.Contains(t, task.Error, "None of the 6 conversations selected for diagnosis could be diagnosed")
	require.Contains(t, task.Error, "output invalid")
	require.Zero(t, p.actionCalls())
}

// TestBudgetDiagnosesFlaggedAndASample: with MAX_DIAGNOSED every flagged conversation
// is diagnosed plus a deterministic sample; the rest are skipped.
func TestBudgetDiagnosesFlaggedAndASample(t *testing.T) {
	t.Parallel()
	b := setup(t)
	convs := sample(t)
	screener := risk.NewScreener()
	var clean []transcript.Conversation
	for _, c := range convs {
		if len(screener.Screen(c)) == 0 {
			clean = append(clean, c)
		}
	}
	require.GreaterOrEqual(t, len(clean), 10, "the sample has unflagged conversations")
	// Three flagged conversations and all the clean ones; a budget of 8.
	var upload []transcript.Conversation
	for _, c := range convs {
		if len(screener.Screen(c)) > 0 && len(upload) < 3 {
			upload = append(upload, c)
		}
	}
	upload = append(upload, clean...)
	id := b.upload(t, upload)
	p := offlineProbe()
	task := b.runTask(t, id, p, pipeline.Options{MaxDiagnosed: 8})
	require.EqualValues(t, "completed", task.Status, task.Error)

	var risk pipeline.RiskSummary
	require.NoError(t, json.Unmarshal(task.RiskSummary, &risk))
	require.Equal(t, 3, risk.Flagged)
	require.Equal(t, 8, risk.Selected)
	require.Equal(t, 8, p.diagnoses())
	flags := map[int]bool{}
	for i, c := range upload {
		flags[i] = len(screener.Screen(c)) > 0
	}
	selected := map[string]bool{}
	for _, c := range b.report(t, id).Conversations {
		if c.Selected {
			selected[c.ExternalID] = true
			require.Equal(t, taskstate.DiagnosisDone, c.DiagnosisStatus)
		} else {
			require.Equal(t, taskstate.DiagnosisSkipped, c.DiagnosisStatus)
		}
	}
	for i, c := range upload[:3] {
		require.True(t, selected[c.ID], "flagged conversation %d is always diagnosed", i)
	}
	want := pipeline.SelectForDiagnosis(id.String(), boolsOf(flags, len(upload)), nil, 8)
	for i, c := range upload {
		require.Equal(t, want[i], selected[c.ID], "the sample is SelectForDiagnosis seeded by the task id")
	}
}

func boolsOf(m map[int]bool, n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = m[i]
	}
	return out
}
