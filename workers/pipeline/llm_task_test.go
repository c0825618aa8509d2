package pipeline_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/llm"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// llmAnalyzer is the LLM analyzer pointed at an llmtest server running script.
func llmAnalyzer(t testing.TB, script llmtest.Script) (*llm.Analyzer, *llmtest.Server) {
	t.Helper()
	var opts []llmtest.Option
	if script != nil {
		opts = append(opts, llmtest.WithScript(script))
	}
	srv := llmtest.New(t, opts...)
	a, err := llm.New(llm.Config{
		APIKey: "test-key", BaseURL: srv.URL(), Model: "gpt-4o-mini",
		BackoffBase: 10 * time.Millisecond, BackoffMax: 40 * time.Millisecond,
	})
	require.NoError(t, err)
	return a, srv
}

// requireUsageCounted checks that the task's spend is what the server counted, in
// total and summed over the stages.
func (b *bundle) requireUsageCounted(t *testing.T, task dbsqlc.AnalysisTask, srv *llmtest.Server) {
	t.Helper()
	st := srv.Stats()
	require.Equal(t, int32(st.Completions), task.LlmCalls)
	require.Equal(t, int64(st.PromptTokens), task.PromptTokens)
	require.Equal(t, int64(st.CompletionTokens), task.CompletionTokens)
	usage := b.report(t, task.ID).Usage
	var calls int32
	var prompt, completion int64
	stages := map[taskstate.Stage]bool{}
	for _, u := range usage {
		stages[u.Stage] = true
		calls += u.Calls
		prompt += u.PromptTokens
		completion += u.CompletionTokens
	}
	require.EqualValues(t, map[taskstate.Stage]bool{taskstate.Diagnosis: true, taskstate.Actions: true}, stages)
	require.Equal(t, task.LlmCalls, calls)
	require.Equal(t, task.PromptTokens, prompt)
	require.Equal(t, task.CompletionTokens, completion)
}

// TestLLMTaskCompletes runs a whole task over the sample with the LLM analyzer against
// a real HTTP server: every answer valid at the first pass, the spend stored equal to
// what the server counted.
func TestLLMTaskCompletes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.uploadSample(t)
	a, srv := llmAnalyzer(t, nil)
	task := b.runTask(t, id, a, pipeline.Options{DiagnosisConcurrency: 4, ActionConcurrency: 4})
	require.EqualValues(t, "completed", task.Status, task.Error)
	require.Equal(t, int32(100), task.FirstPassValid)
	cfg := storedConfig(t, task)
	require.Equal(t, "llm", cfg.Analyzer.Name)
	require.Equal(t, "gpt-4o-mini", cfg.Analyzer.Model)
	require.Equal(t, llm.PromptVersion, cfg.Analyzer.PromptVersion)
	b.requireUsageCounted(t, task, srv)

	rows := b.report(t, id)
	require.NotEmpty(t, requireRanked(t, rows.Actions))
	for _, f := range rows.Findings {
		var ev []analyzer.Evidence
		require.NoError(t, json.Unmarshal(f.Evidence, &ev))
		for _, e := range ev {
			require.True(t, e.Verified, "llmtest quotes real turns: %s turn %d %q", f.ExternalID, e.Turn, e.Quote)
		}
	}
}

// TestLLMRepairAndIsolation: 10% of first answers are invalid and repaired; a few
// conversations answer invalid twice and are isolated — exactly those, named in
// warnings — and the task ends partial.
func TestLLMRepairAndIsolation(t *testing.T) {
	t.Parallel()
	convs := sample(t)
	repaired, isolated := map[string]bool{}, map[string]bool{}
	for i, c := range convs {
		switch {
		case i%10 == 0:
			repaired[c.ID] = true
		case i%30 == 7:
			isolated[c.ID] = true
		}
	}
	require.Len(t, repaired, 10)
	a, srv := llmAnalyzer(t, func(req llmtest.Request, n int) llmtest.Reply {
		conv := req.Conversation()
		switch {
		case repaired[conv] && n == 1:
			return llmtest.InvalidJSON()
		case isolated[conv]:
			return llmtest.WrongEnums(req)
		}
		return llmtest.Valid(req)
	})
	b := setup(t)
	id := b.uploadSample(t)
	task := b.runTask(t, id, a, pipeline.Options{DiagnosisConcurrency: 4})
	require.EqualValues(t, "partial", task.Status)
	require.Contains(t, task.Error, "4 of 100 conversations could not be diagnosed")
	require.Equal(t, int32(10), task.Repaired, "every invalid first answer was repaired")
	require.Equal(t, int32(4), task.Isolated)
	require.Equal(t, int32(86), task.FirstPassValid)
	b.requireUsageCounted(t, task, srv)

	named := map[string]bool{}
	for _, w := range b.warnings(t, id) {
		require.EqualValues(t, taskstate.Diagnosis, w.Stage, w.Message)
		named[strings.TrimPrefix(w.Scope, "conversation ")] = true
	}
	require.Equal(t, isolated, named)
	for _, c := range b.report(t, id).Conversations {
		switch {
		case isolated[c.ExternalID]:
			require.Equal(t, taskstate.DiagnosisIsolated, c.DiagnosisStatus)
			require.Contains(t, c.DiagnosisError, "invalid")
		case repaired[c.ExternalID]:
			require.Equal(t, "repaired", *c.DiagnosisPass)
		default:
			require.Equal(t, "first_pass", *c.DiagnosisPass)
		}
	}
}

// TestLLMCancelWhileCallsHang cancels a task whose model calls hang: the worker sees
// the cancel, the calls return, and the task ends canceled within a second.
func TestLLMCancelWhileCallsHang(t *testing.T) {
	t.Parallel()
	a, srv := llmAnalyzer(t, func(llmtest.Request, int) llmtest.Reply { return llmtest.Hang() })
	b := setup(t)
	id := b.uploadSample(t)
	b.startWorker(t, pipeline.New(b.pool, a, workertest.Options(pipeline.Options{DiagnosisConcurrency: 4})), workers.Config{})
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	require.True(t, srv.WaitRequests(done, 4), "four calls hang")

	start := time.Now()
	status, err := b.store.CancelTask(context.Background(), id, b.owner)
	require.NoError(t, err)
	require.EqualValues(t, "running", status)
	task := b.waitTerminal(t, id, 5*time.Second)
	elapsed := time.Since(start)
	require.EqualValues(t, "canceled", task.Status)
	require.Less(t, elapsed, time.Second)
	t.Logf("canceled %s after the request", elapsed.Round(time.Millisecond))
	require.Zero(t, task.FirstPassValid+task.Repaired+task.Isolated, "no hanging call was counted as a result")
}

// TestLLMNearDuplicateTitlesMakeOneClusterEach: a model that words four problems in
// sixteen ways, with descriptions naming each conversation, yields four clusters and at
// most four Actions, not one per wording.
func TestLLMNearDuplicateTitlesMakeOneClusterEach(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.uploadSample(t)
	a, _ := llmAnalyzer(t, func(req llmtest.Request, _ int) llmtest.Reply { return llmtest.NearDuplicates(req) })
	task := b.runTask(t, id, a, pipeline.Options{DiagnosisConcurrency: 4, ActionConcurrency: 4})
	require.EqualValues(t, "completed", task.Status, task.Error)
	rows := b.report(t, id)
	require.Len(t, rows.Clusters, len(llmtest.DuplicateProblems()))
	require.LessOrEqual(t, len(requireRanked(t, rows.Actions)), len(llmtest.DuplicateProblems()))
	seen := map[string]bool{}
	for _, c := range rows.Clusters {
		require.False(t, seen[c.Category], "one cluster per problem: %s", c.Category)
		seen[c.Category] = true
	}
}
