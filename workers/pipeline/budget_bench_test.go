package pipeline_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// BenchmarkBudgetGoesToFailures measures where a capped LLM budget goes once the agent
// has a detector: half of the airline set (labelled) trains it with the offline
// analyzer; the other half is then uploaded without labels and diagnosed by the LLM
// analyzer against the test server with MAX_DIAGNOSED at 30% of the upload. The halves
// are cut two ways: by scenario (the detector never saw the other half's requests), and
// by retry (the same requests made again, as next week's traffic of the same agent).
// It reports the share of failures among the conversations the server was sent,
// against the upload's base rate, counted from the server's requests (each diagnosis
// request carries its conversation's first user message). Its figures are in
// BENCHMARKS.md:
//
//	go test ./workers/pipeline -run '^$' -bench BudgetGoesToFailures -benchtime 1x
func BenchmarkBudgetGoesToFailures(b *testing.B) {
	for _, split := range []struct {
		name   string
		halves func(testing.TB) ([]transcript.Conversation, []transcript.Conversation)
	}{{"by-scenario", scenarioHalves}, {"by-retry", retryHalves}} {
		b.Run(split.name, func(b *testing.B) { budgetGoesToFailures(b, split.halves) })
	}
}

func budgetGoesToFailures(b *testing.B, halves func(testing.TB) ([]transcript.Conversation, []transcript.Conversation)) {
	for b.Loop() {
		bd := setup(b)
		first, second := halves(b)
		learner := bd.startWorker(b, pipeline.New(bd.pool, offline.New(offline.Options{}), workertest.Options(pipeline.Options{})), workers.Config{})
		trained := bd.waitTerminal(b, bd.uploadAs(b, "Airline", first), time.Minute)
		require.NotNil(b, summaryOf(b, trained))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		require.NoError(b, learner.Stop(ctx))
		cancel()

		a, srv := llmAnalyzer(b, nil)
		budget := len(second) * 3 / 10
		bd.startWorker(b, pipeline.New(bd.pool, a, workertest.Options(pipeline.Options{MaxDiagnosed: budget})), workers.Config{})
		task := bd.waitTerminal(b, bd.uploadAs(b, "Airline", unlabelled(second)), time.Minute)
		require.EqualValues(b, "completed", task.Status, task.Error)

		sent, failedSent, failed := 0, 0, 0
		for _, c := range second {
			isFailed := c.Label == "failed"
			if isFailed {
				failed++
			}
			if sentToModel(srv.Requests(), c) {
				sent++
				if isFailed {
					failedSent++
				}
			}
		}
		base := float64(failed) / float64(len(second))
		share := float64(failedSent) / float64(sent)
		b.ReportMetric(float64(sent), "sent")
		b.ReportMetric(share, "failed_share_sent")
		b.ReportMetric(base, "failed_share_upload")
		b.ReportMetric(share/base, "ratio")
		b.Logf("budget %d of %d: %d sent, %d of them failed (%.2f) against a base rate of %.2f: %.2f× (at most %.2f×)",
			budget, len(second), sent, failedSent, share, base, share/base, 1/base)
	}
}

// sentToModel reports whether a diagnosis request of reqs carried conversation c (its
// first user message).
func sentToModel(reqs []llmtest.Request, c transcript.Conversation) bool {
	opening := jsonText(firstUserMessage(c.Messages))
	for _, req := range reqs {
		if req.ResponseFormat.Name == "diagnosis" && strings.Contains(string(req.Body), opening) {
			return true
		}
	}
	return false
}

// firstUserMessage is the text of the first user turn, which tells the conversation
// apart in a prompt.
func firstUserMessage(msgs []transcript.Message) string {
	for _, m := range msgs {
		if m.Role == transcript.RoleUser && m.Content != "" {
			return m.Content
		}
	}
	return ""
}

// jsonText is s as it appears inside a JSON string of a request body.
func jsonText(s string) string {
	raw, _ := json.Marshal(s)
	return strings.Trim(string(raw), `"`)
}

// retryHalves splits the sample by retry: the first two trials of every scenario, then
// the last two.
func retryHalves(tb testing.TB) (first, second []transcript.Conversation) {
	tb.Helper()
	for _, c := range sample(tb) {
		if strings.HasSuffix(c.ID, "trial0") || strings.HasSuffix(c.ID, "trial1") {
			first = append(first, c)
		} else {
			second = append(second, c)
		}
	}
	return first, second
}
