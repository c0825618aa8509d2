package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// TestLabelsFromTwoTabsAreNeverLost clicks Failed and Succeeded from two tabs of the
// same session at once, with a script labelling through the API meanwhile: every label
// is stored, the task's counts agree with them, and a click of both tabs on the same
// conversation leaves one of the two whole. The burst that brings the agent to the
// detector's minimum waits as one learning task, which names the task to score again;
// a worker then runs it and the task is scored by the new detector.
func TestLabelsFromTwoTabsAreNeverLost(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	id := b.upload(t, b.alice, "Airline, unlabelled", "Airline agent", unlabelledAirline(t))
	b.stopWorker(t)
	truth := airlineOutcomes(t)
	rows := seqsByID(t, b, id)

	// 14 failed and 14 succeeded conversations, each labelled once, by one of three
	// hands at once: tab 1, tab 2 (htmx, as the list's buttons send it) and the API.
	var failed, succeeded []string
	for cid, o := range truth {
		switch {
		case o == "failed" && len(failed) < 14:
			failed = append(failed, cid)
		case o == "succeeded" && len(succeeded) < 14:
			succeeded = append(succeeded, cid)
		}
	}
	var mu sync.Mutex
	var problems []string
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	var wg sync.WaitGroup
	both := append(append([]string{}, failed...), succeeded...)
	for hand := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := hand; i < len(both); i += 3 {
				cid := both[i]
				if hand == 2 {
					body := fmt.Sprintf(`{"labels": [{"conversation_id": %q, "outcome": %q}]}`, cid, truth[cid])
					if status := apiPost(b, b.alice, "/api/v1/tasks/"+id.String()+"/labels", body); status != http.StatusOK {
						fail("API %s: %d", cid, status)
					}
					continue
				}
				if status := clickLabel(b.alice.browser, id, rows[cid], truth[cid]); status != http.StatusOK {
					fail("tab %d %s: %d", hand+1, cid, status)
				}
			}
		}()
	}
	// Both tabs click the same conversation at once, one Failed, the other Succeeded.
	contested := ""
	for cid := range truth {
		if !contains(both, cid) {
			contested = cid
			break
		}
	}
	for _, o := range []string{"failed", "succeeded"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if status := clickLabel(b.alice.browser, id, rows[contested], o); status != http.StatusOK {
				fail("contested %s: %d", o, status)
			}
		}()
	}
	wg.Wait()
	require.Empty(t, problems)

	stored := labelsStored(t, b, id)
	for _, cid := range both {
		require.Equal(t, truth[cid]+"/"+truth[cid], stored[cid], "%s: label and what the owner said", cid)
	}
	got := stored[contested]
	require.Contains(t, []string{"failed/failed", "succeeded/succeeded"}, got, "one click whole, never half of each")
	require.Len(t, stored, len(both)+1)

	r := taskReport(t, b.alice.browser, id)
	l := r.Population.Labelled
	require.Equal(t, len(both)+1, l.Failed+l.Succeeded, "the task counts every label")
	require.Equal(t, 100-len(both)-1, l.Unlabelled)

	require.Equal(t, map[string]int{"pending": 1}, b.learningTasks(t, id), "the burst waits as one learning task")
	var rescore json.RawMessage
	require.NoError(t, b.pool.QueryRow(context.Background(), `
		SELECT l.config -> 'rescore' FROM analysis_task l JOIN analysis_task t ON t.agent_id = l.agent_id
		WHERE t.id = $1 AND l.kind = 'learning'`, id).Scan(&rescore))
	require.JSONEq(t, `["`+id.String()+`"]`, string(rescore), "it scores the labelled task again")

	// The task page says the detector is learning, and its poll answers the same.
	doc := parse(t, b.alice.browser.Get(t, "/tasks/"+id.String()))
	require.Contains(t, words(testid(doc, "learning-pending")), "Airline agent's detector is learning from your labels now")
	require.Equal(t, "/tasks/"+id.String()+"/learning", testid(doc, "learning-pending").AttrOr("hx-get", ""))
	resp := htmx(t, b.alice.browser, http.MethodGet, "/tasks/"+id.String()+"/learning")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Empty(t, resp.Header.Get("HX-Retarget"))
	require.Equal(t, 1, testid(parse(t, resp), "learning-pending").Length())
	require.Equal(t, http.StatusNotFound, htmx(t, b.bob.browser, http.MethodGet, "/tasks/"+id.String()+"/learning").StatusCode)

	p := pipeline.New(b.pool, offline.New(offline.Options{}), workertest.Options(pipeline.Options{}))
	workertest.StartWorker(t, b.pool, p, workers.Config{Poll: 50 * time.Millisecond}, slog.New(slog.DiscardHandler))
	workertest.WaitFor(t, 2*time.Minute, "the learning task to finish", func() bool {
		return b.learningTasks(t, id)["completed"] == 1
	})
	r = taskReport(t, b.alice.browser, id)
	require.NotNil(t, r.FailureModel, "the task is scored by the agent's new detector")
	require.Equal(t, "Airline agent", r.FailureModel.Agent)
	require.Equal(t, len(both)+1, r.FailureModel.TrainedOn)
	resp = htmx(t, b.alice.browser, http.MethodGet, "/tasks/"+id.String()+"/learning")
	require.Equal(t, "#task-page", resp.Header.Get("HX-Retarget"), "done: the poll brings the page scored anew")
	doc = parse(t, resp)
	require.Zero(t, testid(doc, "learning-pending").Length())
	require.Contains(t, words(testid(doc, "failure-source")), "Airline agent's detector, version 1")
}

// clickLabel sends what a label button of the conversation list sends from a tab (htmx,
// with the page's CSRF token) and returns the status. It reports, rather than fails,
// for it runs on goroutines of its own.
func clickLabel(c *authtest.Client, id uuid.UUID, seq int, outcome string) int {
	req, err := http.NewRequest(http.MethodPost, fmt.Sprintf("%s/tasks/%s/conversations/%d/label?from=list&sort=to_label", c.BaseURL, id, seq),
		strings.NewReader(url.Values{"outcome": {outcome}}.Encode()))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("X-CSRF-Token", c.CSRFToken)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// apiPost posts a JSON body with who's token and returns the status, for goroutines.
func apiPost(b labelsBundle, who apiUser, path, body string) int {
	req, err := http.NewRequest(http.MethodPost, b.url+path, strings.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Authorization", "Bearer "+who.api.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// seqsByID is each conversation's seq in task id, by its export id.
func seqsByID(t *testing.T, b labelsBundle, id uuid.UUID) map[string]int {
	t.Helper()
	rows, err := b.pool.Query(context.Background(), `SELECT external_id, seq FROM task_conversation WHERE task_id = $1`, id)
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var cid string
		var seq int
		require.NoError(t, rows.Scan(&cid, &seq))
		out[cid] = seq
	}
	require.NoError(t, rows.Err())
	return out
}

// labelsStored is each labelled conversation of task id as "label/reviewed_label".
func labelsStored(t *testing.T, b labelsBundle, id uuid.UUID) map[string]string {
	t.Helper()
	rows, err := b.pool.Query(context.Background(), `
		SELECT external_id, label || '/' || coalesce(reviewed_label, '') FROM task_conversation
		WHERE task_id = $1 AND label IS NOT NULL`, id)
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var cid, l string
		require.NoError(t, rows.Scan(&cid, &l))
		out[cid] = l
	}
	require.NoError(t, rows.Err())
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
