package pipeline_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/detector"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// scenarioHalves splits the sample by scenario (its ids carry it): the retries of one
// scenario stay on one side.
func scenarioHalves(tb testing.TB) (first, second []transcript.Conversation) {
	tb.Helper()
	re := regexp.MustCompile(`task(\d+)`)
	for _, c := range sample(tb) {
		n, err := strconv.Atoi(re.FindStringSubmatch(c.ID)[1])
		require.NoError(tb, err)
		if n < 13 {
			first = append(first, c)
		} else {
			second = append(second, c)
		}
	}
	return first, second
}

// unlabelled strips what an upload without outcome labels lacks.
func unlabelled(convs []transcript.Conversation) []transcript.Conversation {
	out := make([]transcript.Conversation, len(convs))
	for i, c := range convs {
		c.Label, c.Metadata = transcript.LabelNone, nil
		out[i] = c
	}
	return out
}

func (b *bundle) uploadAs(tb testing.TB, agent string, convs []transcript.Conversation) uuid.UUID {
	tb.Helper()
	return workertest.CreateTask(tb, b.store, b.owner, store.NewTask{Title: agent}, convs)
}

// agentOf reads the task's agent.
func (b *bundle) agentOf(tb testing.TB, task dbsqlc.AnalysisTask) dbsqlc.GetAgentRow {
	tb.Helper()
	require.NotNil(tb, task.AgentID)
	a, err := b.q.GetAgent(context.Background(), b.pool, dbsqlc.GetAgentParams{ID: *task.AgentID, OwnerUserID: b.owner.UserID()})
	require.NoError(tb, err)
	return a
}

func summaryOf(tb testing.TB, task dbsqlc.AnalysisTask) *detector.Summary {
	tb.Helper()
	if len(task.FailureModel) == 0 {
		return nil
	}
	var s detector.Summary
	require.NoError(tb, json.Unmarshal(task.FailureModel, &s))
	return &s
}

// scoresDiffer counts the task's diagnosed conversations whose failure score is not
// the one their analyzer gave.
func (b *bundle) scoresDiffer(tb testing.TB, id uuid.UUID) int {
	tb.Helper()
	var n int
	require.NoError(tb, b.pool.QueryRow(context.Background(), `
		SELECT count(*) FROM task_conversation
		WHERE task_id = $1 AND diagnosis_status = 'done'
		  AND failure_score IS DISTINCT FROM (diagnosis ->> 'failureScore')::real`, id).Scan(&n))
	return n
}

// waitLearned waits until the owner's learning tasks have all finished, and returns
// how many there were.
func (b *bundle) waitLearned(tb testing.TB) int {
	tb.Helper()
	var n, open int
	waitFor(tb, time.Minute, "the learning tasks to finish", func() bool {
		require.NoError(tb, b.pool.QueryRow(context.Background(), `
			SELECT count(*), count(*) FILTER (WHERE finished_at IS NULL) FROM analysis_task
			WHERE owner_user_id = $1 AND kind = 'learning'`, b.owner.UserID()).Scan(&n, &open))
		return open == 0
	})
	return n
}

// TestALabelledRunTeachesItsAgent: a labelled run trains its agent's detector, which
// then scores an unlabelled run of the same agent (its failure_model filled, its
// clusters carrying estimated failures), while a run of another agent keeps the
// analyzer's scores. Deleting the labelled run trains the agent again without its
// labels: too few are left, so the agent has no detector any more; the next labelled
// run trains version 2.
func TestALabelledRunTeachesItsAgent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.startWorker(t, pipeline.New(b.pool, offline.New(offline.Options{}), workertest.Options(pipeline.Options{})), workers.Config{})
	first, second := scenarioHalves(t)

	labelled := b.waitTerminal(t, b.uploadAs(t, "Airline", first), time.Minute)
	require.EqualValues(t, "completed", labelled.Status, labelled.Error)
	trained := summaryOf(t, labelled)
	require.NotNil(t, trained, "the labelled run trained a detector")
	require.Equal(t, 1, trained.Version)
	require.Equal(t, "Airline", trained.Agent)
	require.Equal(t, len(first), trained.TrainedOn)
	require.Equal(t, 1, trained.Runs)
	require.LessOrEqual(t, trained.CVInterval[0], trained.CVAUROC)
	require.GreaterOrEqual(t, trained.CVInterval[1], trained.CVAUROC)
	require.Len(t, trained.Baselines, 3)
	require.NotEmpty(t, trained.TopFeatures)
	agent := b.agentOf(t, labelled)
	require.NotNil(t, agent.FailureModelVersion)
	require.EqualValues(t, 1, *agent.FailureModelVersion)
	require.Positive(t, b.scoresDiffer(t, labelled.ID), "labelled conversations carry their out-of-fold scores")
	var check pipeline.LabelCheck
	require.NoError(t, json.Unmarshal(labelled.LabelCheck, &check))
	require.Len(t, check.Baselines, 3, "the label check states counting's figures beside its own")

	scored := b.waitTerminal(t, b.uploadAs(t, "Airline", unlabelled(second)), time.Minute)
	require.EqualValues(t, "completed", scored.Status, scored.Error)
	require.Equal(t, *agent.FailureModelVersion, int32(summaryOf(t, scored).Version), "the agent's detector scored the unlabelled run")
	require.Greater(t, b.scoresDiffer(t, scored.ID), len(second)*9/10, "the conversations are scored by the detector (a score may meet the analyzer's)")
	rows := b.report(t, scored.ID)
	estimated := 0
	for _, c := range rows.Clusters {
		if c.EstimatedFailures != nil {
			estimated++
		}
	}
	require.Equal(t, len(rows.Clusters), estimated, "every cluster has its estimated failures")

	other := b.waitTerminal(t, b.uploadAs(t, "Retail", unlabelled(second)), time.Minute)
	require.Nil(t, summaryOf(t, other), "another agent's run is not scored by this agent's detector")
	require.Zero(t, b.scoresDiffer(t, other.ID))
	require.NotEqual(t, *labelled.AgentID, *other.AgentID)

	require.NoError(t, b.store.DeleteTask(context.Background(), labelled.ID, b.owner))
	require.Equal(t, 1, b.waitLearned(t))
	agent = b.agentOf(t, scored)
	require.Nil(t, agent.FailureModelVersion, "without the deleted run's labels the agent has too few")

	again := b.waitTerminal(t, b.uploadAs(t, "Airline", first), time.Minute)
	require.Equal(t, 2, summaryOf(t, again).Version)
}

// TestLearningRescoresAFinishedRun: labels given to a finished, unlabelled run (as the
// pages and the API give them) and a learning task make the agent's detector learn
// from them and score that run again: its label check, its detector and its clusters'
// estimated failures change, and its Actions are ranked anew.
func TestLearningRescoresAFinishedRun(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.startWorker(t, pipeline.New(b.pool, offline.New(offline.Options{}), workertest.Options(pipeline.Options{})), workers.Config{})
	convs := sample(t)
	run := b.waitTerminal(t, b.uploadAs(t, "Airline", unlabelled(convs)), time.Minute)
	require.Nil(t, summaryOf(t, run))
	require.Nil(t, run.LabelCheck)

	type label struct {
		Seq     int     `json:"seq"`
		Outcome *string `json:"outcome"`
	}
	var labels []label
	for i, c := range convs[:60] {
		outcome := string(c.Label)
		labels = append(labels, label{Seq: i + 1, Outcome: &outcome})
	}
	raw, err := json.Marshal(labels)
	require.NoError(t, err)
	ctx, ownerID := context.Background(), b.owner.UserID()
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	changed, err := b.q.SetReviewedLabels(ctx, tx, dbsqlc.SetReviewedLabelsParams{Labels: raw, ReviewerID: &ownerID, TaskID: run.ID, OwnerUserID: b.owner.UserID()})
	require.NoError(t, err)
	require.Len(t, changed, 60)
	_, err = b.q.RequestLearning(ctx, tx, dbsqlc.RequestLearningParams{OwnerUserID: b.owner.UserID(), AgentID: run.AgentID, Title: "learning", Rescore: []uuid.UUID{run.ID}})
	require.NoError(t, err)
	require.NoError(t, tx.Commit(ctx))
	require.Equal(t, 1, b.waitLearned(t))

	run = b.task(t, run.ID)
	s := summaryOf(t, run)
	require.NotNil(t, s, "the run is scored by the detector its labels trained")
	require.Equal(t, 60, s.TrainedOn)
	require.NotNil(t, run.LabelCheck)
	require.EqualValues(t, 60, run.KeptFailed+run.KeptSucceeded)
	require.Greater(t, b.scoresDiffer(t, run.ID), len(convs)*9/10)
	for _, c := range b.report(t, run.ID).Clusters {
		require.NotNil(t, c.EstimatedFailures, "cluster %d", c.Idx)
	}
}
