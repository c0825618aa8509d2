package llm

import (
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

// The stages an Observer hears about.
const (
	StageDiagnose = "diagnose"
	StageAction   = "action"
	// StageProbe is the one-word call that tests whether the provider answers again
	// after an outage (Analyzer.Probe).
	StageProbe = "probe"
)

// Call is one HTTP call to the model, as an Observer sees it.
type Call struct {
	// Stage is StageDiagnose, StageAction or StageProbe.
	Stage string
	// Repair is true for the one repair call of a unit.
	Repair bool
	// Try counts the tries of this call, from 1; Try > 1 is a retry.
	Try int
	// Duration is the wall time of the HTTP exchange.
	Duration time.Duration
	// Usage is what the response reported; zero when the call failed.
	Usage analyzer.Usage
	// Err is why the call failed, nil on success.
	Err error
}

// Observer is told about every call, after it ends, for metrics (latency, retries,
// tokens). It is called from the goroutines that make the calls and must be safe for
// concurrent use and quick.
type Observer func(Call)

// usageOf is the usage of one completed response. Usage.Calls counts completed
// chat-completion responses, each of which reports usage: a try that got an error
// status or no answer costs no tokens and is not counted there (an Observer sees it),
// while a unit's repair call is. A unit's Result.Usage sums its completed calls, also
// when the unit fails.
func usageOf(resp openai.ChatCompletionResponse) analyzer.Usage {
	return analyzer.Usage{
		Calls:            1,
		PromptTokens:     resp.Usage.PromptTokens,
		CompletionTokens: resp.Usage.CompletionTokens,
	}
}
