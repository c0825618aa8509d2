package llm

import (
	"context"
	"fmt"

	"github.com/sashabaranov/go-openai"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

// probeMessage is the whole prompt of a probe: the shortest request every
// OpenAI-compatible server answers.
const probeMessage = "Reply with the word OK."

var _ analyzer.Prober = (*Analyzer)(nil)

// Probe makes one short chat completion, without retries, to learn whether the
// provider answers again after an outage. It returns an error wrapping ErrUnavailable
// while the provider is down or throttling; any answer, an error status such as 400 or
// 401 included, means it is up again (the units that follow meet that error
// themselves). The usage is the probe's cost, for the task's spend.
func (a *Analyzer) Probe(ctx context.Context) (analyzer.Usage, error) {
	req := openai.ChatCompletionRequest{
		Model:    a.cfg.Model,
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: probeMessage}},
	}
	_, call := a.observedCall(ctx, req, Call{Stage: StageProbe, Try: 1})
	err := call.Err
	switch {
	case err == nil:
		return call.Usage, nil
	case ctx.Err() != nil:
		return analyzer.Usage{}, fmt.Errorf("llm: probe: %w", ctx.Err())
	case retryable(err):
		return analyzer.Usage{}, fmt.Errorf("llm: probe: %w: %v", ErrUnavailable, err)
	}
	return analyzer.Usage{}, nil
}
