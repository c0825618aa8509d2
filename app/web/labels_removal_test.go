package web_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/workertest"
)

// TestTakenBackOrDeletedLabelsLeaveTheDetector: labels that bring the agent to the
// minimum train its detector, which scores the task (the API's task names it); taking
// labels back below the minimum removes the detector, and the task's scores are its
// diagnosis' again; labelled again it learns again, and deleting the task, its labels
// with it, removes the detector for good.
func TestTakenBackOrDeletedLabelsLeaveTheDetector(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	id := b.upload(t, b.alice, "Airline, unlabelled", "Airline agent", unlabelledAirline(t))
	offline := scoresOf(t, b, id)
	truth := airlineOutcomes(t)
	var labels []labelIn
	failed, succeeded := 0, 0
	for cid, o := range truth {
		if o == "failed" && failed < 12 || o == "succeeded" && succeeded < 12 {
			labels = append(labels, labelIn{cid, outcome(o)})
			if o == "failed" {
				failed++
			} else {
				succeeded++
			}
		}
	}
	got := b.label(t, b.alice, id, labels...)
	require.True(t, got.Agent.Learning, "24 labels, 12 of each: the detector learns")
	waitLearned(t, b, id)

	resp := b.alice.api.Do(t, http.MethodGet, "/api/v1/tasks/"+id.String(), nil, "")
	task := decode[struct {
		Agent        string `json:"agent"`
		FailureModel *struct {
			Version   int `json:"version"`
			TrainedOn int `json:"trained_on"`
		} `json:"failure_model"`
	}](t, b.checked(t, http.MethodGet, "/api/v1/tasks/:id", resp))
	require.Equal(t, "Airline agent", task.Agent)
	require.NotNil(t, task.FailureModel, "the API's task names the detector that scored it")
	require.Equal(t, 1, task.FailureModel.Version)
	require.Equal(t, 24, task.FailureModel.TrainedOn)
	require.NotEqual(t, offline, scoresOf(t, b, id))

	// Three failed labels taken back: 9 of 10 is too few, and the detector goes.
	var back []labelIn
	for _, l := range labels {
		if *l.Outcome == "failed" && len(back) < 3 {
			back = append(back, labelIn{l.ConversationID, nil})
		}
	}
	got = b.label(t, b.alice, id, back...)
	require.Equal(t, 9, got.Agent.Failed)
	require.True(t, got.Agent.Learning, "a detector there is learns again when labels are taken back")
	waitLearned(t, b, id)
	require.Nil(t, reportOf(t, b, id).FailureModel, "no detector scores the task any more")
	require.Equal(t, offline, scoresOf(t, b, id), "the diagnosis' own scores are back")
	doc := parse(t, b.alice.browser.Get(t, "/agents"))
	require.Equal(t, "1 more failed and 0 more succeeded", words(testid(doc, "agent-needed")))

	got = b.label(t, b.alice, id, labelIn{back[0].ConversationID, outcome("failed")})
	require.True(t, got.Agent.Learning)
	waitLearned(t, b, id)
	require.NotNil(t, reportOf(t, b, id).FailureModel, "learned again")
	require.Equal(t, 1, testid(parse(t, b.alice.browser.Get(t, "/agents")), "agent-detector").Length())

	agent := agentOf(t, b, id)
	resp = b.alice.api.Do(t, http.MethodDelete, "/api/v1/tasks/"+id.String(), nil, "")
	b.checked(t, http.MethodDelete, "/api/v1/tasks/:id", resp)
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	workertest.WaitFor(t, 2*time.Minute, "the agent to learn without the deleted task's labels", func() bool {
		var idle bool
		require.NoError(t, b.pool.QueryRow(context.Background(), `
			SELECT a.failure_model_version IS NULL AND NOT EXISTS (
			    SELECT 1 FROM analysis_task l WHERE l.agent_id = a.id AND l.kind = 'learning' AND l.status IN ('pending', 'running'))
			FROM agent a WHERE a.id = $1`, agent).Scan(&idle))
		return idle
	})
	doc = parse(t, b.alice.browser.Get(t, "/agents"))
	require.Equal(t, "10 more failed and 10 more succeeded", words(testid(doc, "agent-needed")), "its labels left with the task")
}
