// Package analyzer is the boundary between the pipeline and whatever reads
// conversations: the interface the diagnosis and Action stages call, and the JSON
// shapes both implementations (offline rules and the LLM) return.
package analyzer

import (
	"context"
	"errors"

	"github.com/checkup-dev/checkup/db/transcript"
)

// ErrInvalidOutput marks an answer that stayed invalid after normalisation and the one
// repair: the pipeline isolates that unit and goes on.
var ErrInvalidOutput = errors.New("analyzer: output invalid after repair")

// ErrUnavailable marks a unit that failed because the model provider is down or
// throttling (server errors, rate limits, refused connections, timeouts), not because
// of anything in the unit: the pipeline pauses the task's model work until a Probe
// succeeds and then does the unit again, instead of isolating it.
var ErrUnavailable = errors.New("analyzer: model provider unavailable")

// Info describes an analyzer for the task's stored config and the report.
type Info struct {
	Name          string `json:"analyzer"`       // "offline" or "llm"
	Label         string `json:"label"`          // shown to people, e.g. "offline analysis"
	Model         string `json:"model"`          // empty for offline
	PromptVersion string `json:"prompt_version"` // empty for offline
}

// Pass says how an answer became valid.
type Pass string

// The passes an answer can take.
const (
	PassFirst    Pass = "first_pass"
	PassRepaired Pass = "repaired"
)

// Usage is what one unit of work cost.
type Usage struct {
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Add returns the sum of u and o.
func (u Usage) Add(o Usage) Usage {
	return Usage{u.Calls + o.Calls, u.PromptTokens + o.PromptTokens, u.CompletionTokens + o.CompletionTokens}
}

// Result is a valid answer with what it cost. Usage is set on errors too, so spend on
// isolated units is still counted. Adjusted counts what the analyzer changed to make
// the unit fit its limits and the database.
type Result[T any] struct {
	Value    T
	Pass     Pass
	Usage    Usage
	Adjusted Adjustments
}

// Analyzer reads conversations and writes Actions. Implementations must be safe for
// concurrent use and must return promptly when ctx is cancelled. An error other than a
// context error isolates the unit; the pipeline never retries it.
type Analyzer interface {
	Info() Info
	Diagnose(ctx context.Context, conv transcript.Conversation) (Result[Diagnosis], error)
	WriteAction(ctx context.Context, brief ClusterBrief) (Result[Action], error)
}

// Prober is an Analyzer whose provider can be down for a while. Probe makes one cheap
// call and returns nil once the provider answers again, with what the call cost; the
// pipeline calls it while a task waits out an outage.
type Prober interface {
	Probe(ctx context.Context) (Usage, error)
}
