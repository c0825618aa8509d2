package llm_test

import (
	"cmp"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/llm"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
)

// readSample reads testdata/airline-100.jsonl, without its ground-truth metadata.
func readSample(t testing.TB) []transcript.Conversation { return transcripttest.Sample(t) }

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
