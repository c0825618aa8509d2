package pipeline_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
	"github.com/checkup-dev/checkup/workers/pipeline"
)

// TestLLMAnswersWithNULsComplete: a model that puts \u0000 into every text field of
// every 5th answer, diagnoses and Actions alike, no longer fails the task: the NULs
// are removed, nothing is isolated, and each unit they touched says how many were
// removed in a warning.
func TestLLMAnswersWithNULsComplete(t *testing.T) {
	t.Parallel()
	a, srv := llmAnalyzer(t, func(req llmtest.Request, _ int) llmtest.Reply {
		if req.Seq%5 == 0 {
			return llmtest.WithNULs(req)
		}
		return llmtest.Valid(req)
	})
	b := setup(t)
	id := b.uploadSample(t)
	task := b.runTask(t, id, a, pipeline.Options{DiagnosisConcurrency: 4})
	require.EqualValues(t, "completed", task.Status, task.Error)
	require.Zero(t, task.Isolated)
	b.requireUsageCounted(t, task, srv)

	warned := 0
	for _, w := range b.warnings(t, id) {
		require.Contains(t, w.Message, "U+0000 characters, which cannot be stored, were removed from the model's answer", w.Message)
		warned++
	}
	require.Equal(t, srv.Stats().Requests/5, warned, "one warning per answer with NULs")
	rows := b.report(t, id)
	for _, f := range rows.Findings {
		require.NotContains(t, f.Title+f.Description, "\x00")
	}
}

// TestUnstorableDiagnosisIsolatesItsConversation: an analyzer whose answers hold text
// PostgreSQL refuses (here U+0000, which the LLM analyzer removes but another analyzer
// may not) costs those conversations and Actions, each with a warning, never the task.
func TestUnstorableDiagnosisIsolatesItsConversation(t *testing.T) {
	t.Parallel()
	convs := sample(t)
	bad := map[string]bool{}
	for i, c := range convs {
		if i%5 == 0 {
			bad[c.ID] = true
		}
	}
	p := offlineProbe()
	p.changeDiagnosis = func(conv transcript.Conversation, d *analyzer.Diagnosis) {
		if bad[conv.ID] {
			d.Summary += "\x00"
		}
	}
	p.changeAction = func(a *analyzer.Action) { a.Title += "\x00" }
	b := setup(t)
	id := b.uploadSample(t)
	task := b.runTask(t, id, p, pipeline.Options{DiagnosisConcurrency: 4})
	require.EqualValues(t, "partial", task.Status, task.Error)
	require.Equal(t, int32(len(bad)), task.Isolated)

	isolated := map[string]bool{}
	for _, c := range b.report(t, id).Conversations {
		if c.DiagnosisStatus == taskstate.DiagnosisIsolated {
			isolated[c.ExternalID] = true
			require.Contains(t, c.DiagnosisError, "the database refused to store its diagnosis")
		}
	}
	require.Equal(t, bad, isolated)
	// The failure drivers count only stored diagnoses: no driver names an isolated
	// conversation among its conversations (counting the isolated ones here makes a
	// driver that does).
	isolatedSeqs := map[int32]bool{}
	for _, c := range b.report(t, id).Conversations {
		if c.DiagnosisStatus == taskstate.DiagnosisIsolated {
			isolatedSeqs[c.Seq] = true
		}
	}
	driverRows, err := b.pool.Query(context.Background(), `SELECT conversation_seqs FROM task_driver WHERE task_id = $1`, id)
	require.NoError(t, err)
	members, err := pgx.CollectRows(driverRows, pgx.RowTo[[]int32])
	require.NoError(t, err)
	for _, seqs := range members {
		for _, seq := range seqs {
			require.False(t, isolatedSeqs[seq], "conversation %d is isolated but a driver counts it", seq)
		}
	}
	actionWarnings := 0
	for _, w := range b.warnings(t, id) {
		switch w.Stage {
		case taskstate.Diagnosis:
			require.True(t, bad[strings.TrimPrefix(w.Scope, "conversation ")], w.Scope)
		case taskstate.Actions:
			require.Contains(t, w.Message, "could not be written: the database refused to store it")
			actionWarnings++
		}
	}
	require.Positive(t, actionWarnings)
	rows := b.report(t, id)
	for _, a := range rows.Actions {
		require.EqualValues(t, "failed", a.Status)
		require.True(t, a.Action == nil || json.Valid(a.Action))
	}
}

// A model answering scores too small for the database's single precision (1e-50) has
// its diagnoses stored, with those scores as zero, instead of each conversation
// isolated as one the database refused.
func TestTinyScoresAreStored(t *testing.T) {
	t.Parallel()
	p := offlineProbe()
	p.changeDiagnosis = func(_ transcript.Conversation, d *analyzer.Diagnosis) {
		d.FailureScore = 1e-50
		for i := range d.Findings {
			d.Findings[i].Confidence = 1e-50
		}
	}
	b := setup(t)
	id := b.uploadSample(t)
	task := b.runTask(t, id, p, pipeline.Options{})
	require.EqualValues(t, "completed", task.Status, task.Error)
	require.Zero(t, task.Isolated)
	var positive int
	require.NoError(t, b.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM task_conversation WHERE task_id = $1 AND (diagnosis ->> 'failureScore')::real > 0`, id).Scan(&positive))
	require.Zero(t, positive)
}
