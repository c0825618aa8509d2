package llm_test

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/llm"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
	"github.com/checkup-dev/checkup/workers/transcript"
)

// readSample reads testdata/airline-100.jsonl into conversations. Its metadata (the
// ground-truth label) is not read: analysis must never see it.
func readSample(t testing.TB) []transcript.Conversation {
	t.Helper()
	f, err := os.Open("../../testdata/airline-100.jsonl")
	require.NoError(t, err)
	defer f.Close()
	var convs []transcript.Conversation
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var line struct {
			ID       string `json:"conversation_id"`
			Messages []struct {
				Role       string  `json:"role"`
				Content    *string `json:"content"`
				Name       string  `json:"name"`
				ToolCallID string  `json:"tool_call_id"`
				ToolCalls  []struct {
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line))
		conv := transcript.Conversation{ID: line.ID}
		for _, m := range line.Messages {
			msg := transcript.Message{Role: transcript.Role(m.Role), Name: m.Name, ToolCallID: m.ToolCallID}
			if m.Content != nil {
				msg.Content = *m.Content
			}
			for _, c := range m.ToolCalls {
				msg.ToolCalls = append(msg.ToolCalls, transcript.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
			}
			conv.Messages = append(conv.Messages, msg)
		}
		convs = append(convs, conv)
	}
	require.NoError(t, sc.Err())
	require.Len(t, convs, 100)
	return convs
}

type bundle struct {
	srv *llmtest.Server
	a   *llm.Analyzer
}

// setup starts an llmtest server answering with script (valid answers when nil) and
// an analyzer pointed at it, with short backoffs.
func setup(t testing.TB, script llmtest.Script, cfg llm.Config) bundle {
	t.Helper()
	var opts []llmtest.Option
	if script != nil {
		opts = append(opts, llmtest.WithScript(script))
	}
	srv := llmtest.New(t, opts...)
	cfg.BaseURL = srv.URL()
	cfg.APIKey = "test-key"
	cfg.Model = cmp.Or(cfg.Model, "gpt-4o-mini")
	cfg.BackoffBase = cmp.Or(cfg.BackoffBase, 10*time.Millisecond)
	cfg.BackoffMax = cmp.Or(cfg.BackoffMax, 40*time.Millisecond)
	a, err := llm.New(cfg)
	require.NoError(t, err)
	return bundle{srv: srv, a: a}
}

type outcome struct {
	res analyzer.Result[analyzer.Diagnosis]
	err error
}

// diagnoseAll diagnoses convs with at most workers calls in flight; outcomes keep the
// order of convs.
func diagnoseAll(ctx context.Context, a *llm.Analyzer, convs []transcript.Conversation, workers int) []outcome {
	out := make([]outcome, len(convs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				res, err := a.Diagnose(ctx, convs[i])
				out[i] = outcome{res, err}
			}
		})
	}
	for i := range convs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// totalUsage sums the usage of all outcomes, failed ones included.
func totalUsage(outs []outcome) analyzer.Usage {
	var u analyzer.Usage
	for _, o := range outs {
		u = u.Add(o.res.Usage)
	}
	return u
}

// requireCounted checks that the usage the analyzer returned is what the server
// reported.
func requireCounted(t *testing.T, srv *llmtest.Server, u analyzer.Usage) {
	t.Helper()
	st := srv.Stats()
	require.Equal(t, st.Completions, u.Calls)
	require.Equal(t, st.PromptTokens, u.PromptTokens)
	require.Equal(t, st.CompletionTokens, u.CompletionTokens)
}

// requireQuotesVerify checks that every evidence quote is found in its turn of conv,
// as the pipeline verifies quotes.
func requireQuotesVerify(t *testing.T, conv transcript.Conversation, d analyzer.Diagnosis) {
	t.Helper()
	for _, f := range d.Findings {
		for _, e := range f.Evidence {
			m, ok := conv.Turn(e.Turn)
			require.True(t, ok, "%s: turn %d", conv.ID, e.Turn)
			require.Contains(t, analyzer.TurnText(m), e.Quote, "%s: turn %d", conv.ID, e.Turn)
		}
	}
}

// idSet returns the ids of every k-th conversation.
func idSet(convs []transcript.Conversation, k int) map[string]bool {
	ids := map[string]bool{}
	for i, c := range convs {
		if i%k == 0 {
			ids[c.ID] = true
		}
	}
	return ids
}
