package llm_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/llm"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
)

func TestRequestCarriesStrictSchemaAndZeroTemperature(t *testing.T) {
	t.Parallel()
	b := setup(t, nil, llm.Config{Model: "gpt-4o-2024-08-06"})
	conv := readSample(t)[0]

	res, err := b.a.Diagnose(context.Background(), conv)
	require.NoError(t, err)
	require.Equal(t, analyzer.PassFirst, res.Pass)

	reqs := b.srv.Requests()
	require.Len(t, reqs, 1)
	req := reqs[0]
	require.Equal(t, "gpt-4o-2024-08-06", req.Model)
	require.Equal(t, "Bearer test-key", req.Authorization)
	require.NotNil(t, req.Temperature, "temperature 0 must be sent, not omitted")
	require.Zero(t, *req.Temperature)
	require.Contains(t, string(req.Body), `"temperature":0`)

	rf := req.ResponseFormat
	require.Equal(t, "json_schema", rf.Type)
	require.Equal(t, "diagnosis", rf.Name)
	require.True(t, rf.Strict)
	var schema struct {
		Type                 string         `json:"type"`
		AdditionalProperties *bool          `json:"additionalProperties"`
		Required             []string       `json:"required"`
		Properties           map[string]any `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(rf.Schema, &schema))
	require.Equal(t, "object", schema.Type)
	require.False(t, *schema.AdditionalProperties)
	require.ElementsMatch(t, []string{"outcome", "summary", "findings", "failureScore", "failedTurn"}, schema.Required)

	require.Equal(t, "system", req.Messages[0].Role)
	require.Equal(t, conv.ID, req.Conversation())
	for _, label := range []string{"end_reason", "tau-bench", "reward"} {
		require.NotContains(t, req.User(), label, "the ground-truth metadata never reaches the prompt")
	}
}

func TestReasoningModelGetsNoTemperature(t *testing.T) {
	t.Parallel()
	b := setup(t, nil, llm.Config{Model: "o3-mini"})
	_, err := b.a.Diagnose(context.Background(), readSample(t)[1])
	require.NoError(t, err)
	require.Nil(t, b.srv.Requests()[0].Temperature, "reasoning models refuse a temperature")
}

func TestInfo(t *testing.T) {
	t.Parallel()
	b := setup(t, nil, llm.Config{Model: "m"})
	require.Equal(t, analyzer.Info{Name: "llm", Label: "LLM analysis", Model: "m", PromptVersion: llm.PromptVersion}, b.a.Info())
}

func TestDiagnoseSampleAllValid(t *testing.T) {
	t.Parallel()
	b := setup(t, nil, llm.Config{})
	convs := readSample(t)

	outs := diagnoseAll(context.Background(), b.a, convs, 4)

	for i, o := range outs {
		require.NoError(t, o.err, convs[i].ID)
		require.Equal(t, analyzer.PassFirst, o.res.Pass)
		require.Equal(t, 1, o.res.Usage.Calls)
		require.NotEmpty(t, o.res.Value.Findings, convs[i].ID)
		requireQuotesVerify(t, convs[i], o.res.Value)
	}
	require.Equal(t, 100, b.srv.Stats().Requests)
	requireCounted(t, b.srv, totalUsage(outs))
}

func TestDiagnoseRepairsInvalidFirstAnswersOnce(t *testing.T) {
	t.Parallel()
	convs := readSample(t)
	faulty := idSet(convs, 10)
	faults := []func(llmtest.Request) llmtest.Reply{
		func(llmtest.Request) llmtest.Reply { return llmtest.InvalidJSON() },
		llmtest.Truncated,
		llmtest.WrongEnums,
	}
	b := setup(t, func(req llmtest.Request, n int) llmtest.Reply {
		if faulty[req.Conversation()] && n == 1 {
			return faults[req.Seq%len(faults)](req)
		}
		return llmtest.Valid(req)
	}, llm.Config{})

	outs := diagnoseAll(context.Background(), b.a, convs, 4)

	for i, o := range outs {
		require.NoError(t, o.err, convs[i].ID)
		requireQuotesVerify(t, convs[i], o.res.Value)
		if faulty[convs[i].ID] {
			require.Equal(t, analyzer.PassRepaired, o.res.Pass, convs[i].ID)
			require.Equal(t, 2, o.res.Usage.Calls, "exactly one extra call")
		} else {
			require.Equal(t, analyzer.PassFirst, o.res.Pass, convs[i].ID)
			require.Equal(t, 1, o.res.Usage.Calls)
		}
	}
	require.Len(t, faulty, 10)
	require.Equal(t, 110, b.srv.Stats().Requests)
	requireCounted(t, b.srv, totalUsage(outs))

	for _, req := range b.srv.Requests() {
		if !req.Repair() {
			continue
		}
		require.True(t, faulty[req.Conversation()])
		require.Len(t, req.Messages, 4, "system, user, the rejected answer, the problems")
		require.Equal(t, "assistant", req.Messages[2].Role)
		require.Contains(t, req.Messages[3].Content, "cannot be used")
	}
}

func TestDiagnoseIsolatesAnswersInvalidTwice(t *testing.T) {
	t.Parallel()
	convs := readSample(t)
	broken := idSet(convs, 7)
	b := setup(t, func(req llmtest.Request, _ int) llmtest.Reply {
		if broken[req.Conversation()] {
			return llmtest.WrongEnums(req)
		}
		return llmtest.Valid(req)
	}, llm.Config{})

	outs := diagnoseAll(context.Background(), b.a, convs, 4)

	for i, o := range outs {
		if broken[convs[i].ID] {
			require.ErrorIs(t, o.err, analyzer.ErrInvalidOutput, convs[i].ID)
			require.Contains(t, o.err.Error(), "value must be one of")
			require.Equal(t, 2, o.res.Usage.Calls, "spend on an isolated unit is still counted")
			continue
		}
		require.NoError(t, o.err, convs[i].ID)
		require.Equal(t, analyzer.PassFirst, o.res.Pass)
	}
	requireCounted(t, b.srv, totalUsage(outs))
}

func TestDiagnoseNormalisesWithoutRepair(t *testing.T) {
	t.Parallel()
	for name, reply := range map[string]func(llmtest.Request) llmtest.Reply{
		"fenced":     llmtest.Fenced,
		"prose":      llmtest.WithProse,
		"misspelled": llmtest.Misspelled,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, func(req llmtest.Request, _ int) llmtest.Reply { return reply(req) }, llm.Config{})
			conv := readSample(t)[3]

			res, err := b.a.Diagnose(context.Background(), conv)

			require.NoError(t, err)
			require.Equal(t, analyzer.PassFirst, res.Pass)
			require.Equal(t, 1, b.srv.Stats().Requests, "no repair call")
			require.Equal(t, "resolved", res.Value.Outcome)
			f := res.Value.Findings[0]
			require.Equal(t, analyzer.TypeAction, f.Type)
			require.Contains(t, analyzer.Categories(), f.Category)
			require.LessOrEqual(t, f.Severity, 5)
			require.LessOrEqual(t, f.Confidence, 1.0)
			require.LessOrEqual(t, f.PriorityScore, 100.0)
			requireQuotesVerify(t, conv, res.Value)
		})
	}
}

func TestDiagnoseRepairsMissingFields(t *testing.T) {
	t.Parallel()
	b := setup(t, func(req llmtest.Request, n int) llmtest.Reply {
		if n == 1 {
			return llmtest.Reply{Content: `{"outcome":"resolved","findings":[],"failureScore":0,"failedTurn":0}`}
		}
		return llmtest.Valid(req)
	}, llm.Config{})

	res, err := b.a.Diagnose(context.Background(), readSample(t)[5])

	require.NoError(t, err)
	require.Equal(t, analyzer.PassRepaired, res.Pass)
	repair := b.srv.Requests()[1]
	require.Contains(t, repair.Messages[3].Content, "missing property 'summary'")
}

func TestJSONModeObjectPutsSchemaInPrompt(t *testing.T) {
	t.Parallel()
	b := setup(t, nil, llm.Config{JSONMode: llm.JSONModeObject})

	_, err := b.a.Diagnose(context.Background(), readSample(t)[2])
	require.NoError(t, err)
	_, err = b.a.WriteAction(context.Background(), brief())
	require.NoError(t, err)

	for i, name := range []string{"diagnosis", "action"} {
		req := b.srv.Requests()[i]
		require.Equal(t, "json_object", req.ResponseFormat.Type)
		require.Empty(t, req.ResponseFormat.Name)
		require.Empty(t, req.ResponseFormat.Schema)
		require.Contains(t, req.System(), `JSON Schema "`+name+`"`)
		require.Contains(t, req.System(), `"additionalProperties":false`)
		require.Equal(t, name, req.Schema())
	}
}

func TestWriteAction(t *testing.T) {
	t.Parallel()
	b := setup(t, func(req llmtest.Request, _ int) llmtest.Reply {
		if strings.Contains(req.User(), "other cluster") {
			return llmtest.WrongEnums(req)
		}
		return llmtest.Misspelled(req)
	}, llm.Config{})

	res, err := b.a.WriteAction(context.Background(), brief())

	require.NoError(t, err)
	require.Equal(t, analyzer.PassFirst, res.Pass)
	require.Equal(t, "prompt", res.Value.FixLocation)
	require.NotEmpty(t, res.Value.Recommendation)
	req := b.srv.Requests()[0]
	require.Equal(t, "action", req.ResponseFormat.Name)
	require.True(t, req.ResponseFormat.Strict)
	require.Contains(t, req.User(), "Seen in 12 of 80 analysed conversations")
	require.Contains(t, req.User(), `turn 7 (Unconfirmed booking change): "yes, go ahead"`)

	res, err = b.a.WriteAction(context.Background(), analyzer.ClusterBrief{Title: "other cluster"})
	require.ErrorIs(t, err, analyzer.ErrInvalidOutput)
	require.Contains(t, err.Error(), "at /fixLocation")
	require.Equal(t, 2, res.Usage.Calls)
}

func brief() analyzer.ClusterBrief {
	return analyzer.ClusterBrief{
		Type: analyzer.TypeAction, Category: "unconfirmed_write", Title: "Unconfirmed booking change",
		Descriptions:      []string{"The agent changed a flight before the user said yes.", strings.Repeat("long ", 400)},
		ConversationCount: 12, AnalysedCount: 80, Severity: 4.2, Confidence: 0.8, PriorityScore: 71,
		Examples: []analyzer.Example{{ConversationID: "c1", Seq: 3, Turn: 7, Quote: "yes, go ahead", FindingTitle: "Unconfirmed booking change"}},
	}
}
