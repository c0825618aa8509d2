package web_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
)

// sampleScenarios is the lines of a sample set whose scenario (the number its ids carry)
// keep says to keep, with or without their metadata (the labels).
func sampleScenarios(t testing.TB, set string, keep func(scenario int) bool, labels bool) []byte {
	t.Helper()
	f, err := os.Open(transcripttest.Path(set))
	require.NoError(t, err)
	defer f.Close()
	re := regexp.MustCompile(`task(\d+)`)
	var out bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var line map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line))
		var id string
		require.NoError(t, json.Unmarshal(line["conversation_id"], &id))
		n, err := strconv.Atoi(re.FindStringSubmatch(id)[1])
		require.NoError(t, err)
		if !keep(n) {
			continue
		}
		if !labels {
			delete(line, "metadata")
		}
		b, err := json.Marshal(line)
		require.NoError(t, err)
		out.Write(append(b, '\n'))
	}
	require.NoError(t, sc.Err())
	return out.Bytes()
}

// apiTask is what GET /api/v1/tasks/{id} says of a task's agent and detector.
type apiTask struct {
	Agent        string `json:"agent"`
	FailureModel *struct {
		Agent     string     `json:"agent"`
		Version   int        `json:"version"`
		TrainedOn int        `json:"trained_on"`
		CVAUROC   float64    `json:"cv_auroc"`
		Interval  [2]float64 `json:"cv_interval"`
	} `json:"failure_model"`
}

func (b labelsBundle) apiTask(t testing.TB, id uuid.UUID) apiTask {
	t.Helper()
	resp := b.alice.api.Do(t, http.MethodGet, "/api/v1/tasks/"+id.String(), nil, "")
	body := b.checked(t, http.MethodGet, "/api/v1/tasks/:id", resp)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	var task apiTask
	require.NoError(t, json.Unmarshal(body, &task))
	return task
}

// TestAnUploadJoinsItsAgentAndIsScoredByWhatItLearned: through the real server, a
// labelled upload trains its agent's detector; an unlabelled upload of other
// scenarios, naming no agent, joins that agent by its system prompt and is scored by
// the detector (failure_model filled in the API's task); an upload of another agent
// (another policy) starts an agent of its own and is not.
func TestAnUploadJoinsItsAgentAndIsScoredByWhatItLearned(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	first := b.upload(t, b.alice, "Week 1", "", sampleScenarios(t, transcripttest.Airline, func(n int) bool { return n < 13 }, true))
	trained := b.apiTask(t, first)
	require.Equal(t, "Week 1", trained.Agent, "an upload naming no agent, and matching none, starts one named after its title")
	require.NotNil(t, trained.FailureModel, "the labelled upload trained its agent's detector")
	require.Equal(t, 1, trained.FailureModel.Version)
	require.Equal(t, 52, trained.FailureModel.TrainedOn)

	second := b.upload(t, b.alice, "Week 2", "", sampleScenarios(t, transcripttest.Airline, func(n int) bool { return n >= 13 }, false))
	scored := b.apiTask(t, second)
	require.Equal(t, "Week 1", scored.Agent, "the same policy joins the same agent")
	require.NotNil(t, scored.FailureModel, "the agent's detector scored the unlabelled upload")
	require.Equal(t, trained.FailureModel.Version, scored.FailureModel.Version)
	require.LessOrEqual(t, scored.FailureModel.Interval[0], scored.FailureModel.CVAUROC)

	other := b.upload(t, b.alice, "Shop", "", sampleScenarios(t, transcripttest.Retail, func(int) bool { return true }, false))
	shop := b.apiTask(t, other)
	require.Equal(t, "Shop", shop.Agent, "another policy is another agent")
	require.Nil(t, shop.FailureModel, "another agent's detector never scores it")
}
