package llm_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/llm"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
)

// BenchmarkDiagnoseConcurrency4 diagnoses the 100 sample conversations, 4 at a time,
// against a server that answers every call after 200ms, and reports the wall time
// over the ideal 100×200ms/4 = 5s as "wall/ideal" (target ≤ 1.10): the overhead of
// rendering, validation and the HTTP client. Run it with
//
//	go test ./workers/llm -run '^$' -bench DiagnoseConcurrency4 -benchtime 2x
func BenchmarkDiagnoseConcurrency4(b *testing.B) {
	const latency, workers = 200 * time.Millisecond, 4
	bb := setup(b, func(req llmtest.Request, _ int) llmtest.Reply {
		r := llmtest.Valid(req)
		r.Delay = latency
		return r
	}, llm.Config{})
	convs := readSample(b)
	ideal := time.Duration(len(convs)) * latency / workers

	for b.Loop() {
		for _, o := range diagnoseAll(context.Background(), bb.a, convs, workers) {
			if o.err != nil {
				b.Fatal(o.err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(ideal), "wall/ideal")
}

// BenchmarkPromptSize renders the diagnosis prompt of each sample conversation, and of
// a hostile one (2,001 long messages, a tool error in every third, a 200,000-character
// policy), and reports their size in characters, all messages of the request counted:
// the mean and the largest over the sample, and the hostile one's, which the cap
// (LLM_MAX_PROMPT_CHARS, default 48,000) bounds. Run it with
//
//	go test ./workers/llm -run '^$' -bench PromptSize -benchtime 1x
func BenchmarkPromptSize(b *testing.B) {
	bb := setup(b, nil, llm.Config{})
	convs := append(readSample(b), hostileConversation())
	for b.Loop() {
		for _, o := range diagnoseAll(context.Background(), bb.a, convs, 4) {
			if o.err != nil {
				b.Fatal(o.err)
			}
		}
	}
	sizes := map[string]int{}
	for _, r := range bb.srv.Requests() {
		sizes[r.Conversation()] = promptChars(r)
	}
	sum, largest := 0, 0
	for _, c := range convs[:len(convs)-1] {
		sum += sizes[c.ID]
		largest = max(largest, sizes[c.ID])
	}
	b.ReportMetric(float64(sum)/float64(len(convs)-1), "chars/sample-prompt")
	b.ReportMetric(float64(largest), "chars/largest-sample-prompt")
	b.ReportMetric(float64(sizes["hostile"]), "chars/hostile-prompt")
}

// hostileConversation is 2,001 long messages, a tool error in every third, under a
// 200,000-character policy.
func hostileConversation() transcript.Conversation {
	conv := transcript.Conversation{ID: "hostile", Messages: []transcript.Message{
		{Role: transcript.RoleSystem, Content: strings.Repeat("Policy rule. ", 200_000/13)},
		{Role: transcript.RoleUser, Content: "Please help with my request."},
	}}
	for i := range 1999 {
		m := transcript.Message{Role: transcript.RoleAssistant, Content: fmt.Sprintf("message %d %s", i+3, strings.Repeat("long text ", 130))}
		switch {
		case i%3 == 0:
			m = transcript.Message{Role: transcript.RoleTool, Name: "lookup", Content: "Error: not found"}
		case i%2 == 1:
			m.Role = transcript.RoleUser
		}
		conv.Messages = append(conv.Messages, m)
	}
	return conv
}
