// Package llm is the analyzer that asks a model: one chat-completion call per
// conversation (diagnosis) or issue cluster (Action) through go-openai, against any
// OpenAI-compatible server, with temperature 0 and the answer constrained by a strict
// JSON Schema. Answers are normalised, validated and repaired at most once; failed
// calls are retried with backoff; every call's token usage is returned with the result.
package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// The JSON modes: how the answer's shape is imposed.
const (
	// JSONModeSchema sends the schema as response_format json_schema in strict mode,
	// so the server constrains the answer to it.
	JSONModeSchema = "schema"
	// JSONModeObject sends response_format json_object and the schema in the prompt,
	// for servers without schema support.
	JSONModeObject = "object"
)

// Config configures an Analyzer; zero values take the defaults noted.
type Config struct {
	// APIKey is sent as a bearer token; it may be empty for local servers.
	APIKey string
	// BaseURL is the API base, e.g. http://127.0.0.1:8000/v1; empty means OpenAI's.
	BaseURL string
	// Model is required.
	Model string
	// JSONMode is JSONModeSchema (default) or JSONModeObject.
	JSONMode string
	// Timeout bounds one HTTP call (default 60s); a call that runs out is retried.
	Timeout time.Duration
	// MaxPromptChars caps the characters of one request's messages, its repair
	// included (default DefaultMaxPromptChars, at least MinMaxPromptChars): a longer
	// transcript loses turns from its middle, marked in the prompt and counted in the
	// Result's Adjustments.
	MaxPromptChars int
	// MaxTries bounds the tries of one call, the first included (default 4).
	MaxTries int
	// BackoffBase and BackoffMax shape the wait between tries (defaults 500ms, 20s);
	// see Analyzer.backoff.
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// Logger receives a warning per retry (default: discarded).
	Logger *slog.Logger
	// Observer, when set, is told about every call.
	Observer Observer
}

// withDefaults fills the zero fields of c.
func (c Config) withDefaults() Config {
	c.JSONMode = cmp.Or(c.JSONMode, JSONModeSchema)
	c.Timeout = cmp.Or(c.Timeout, 60*time.Second)
	c.MaxPromptChars = cmp.Or(c.MaxPromptChars, DefaultMaxPromptChars)
	c.MaxTries = cmp.Or(c.MaxTries, 4)
	c.BackoffBase = cmp.Or(c.BackoffBase, 500*time.Millisecond)
	c.BackoffMax = cmp.Or(c.BackoffMax, 20*time.Second)
	c.Logger = cmp.Or(c.Logger, slog.New(slog.DiscardHandler))
	return c
}

func (c Config) validate() error {
	var errs []error
	if c.Model == "" {
		errs = append(errs, errors.New("a model is required"))
	}
	if c.JSONMode != JSONModeSchema && c.JSONMode != JSONModeObject {
		errs = append(errs, fmt.Errorf("JSON mode %q is neither %q nor %q", c.JSONMode, JSONModeSchema, JSONModeObject))
	}
	if c.BaseURL != "" {
		if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("base URL %q is not an http(s) URL", c.BaseURL))
		}
	}
	if c.Timeout < 0 || c.MaxTries < 0 || c.BackoffBase < 0 || c.BackoffMax < 0 {
		errs = append(errs, errors.New("timeout, tries and backoff cannot be negative"))
	}
	if c.MaxPromptChars < MinMaxPromptChars {
		errs = append(errs, fmt.Errorf("prompt cap %d is below %d characters", c.MaxPromptChars, MinMaxPromptChars))
	}
	if c.BackoffBase > c.BackoffMax {
		errs = append(errs, fmt.Errorf("backoff base %s exceeds backoff max %s", c.BackoffBase, c.BackoffMax))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("llm: config: %w", err)
	}
	return nil
}

// Analyzer diagnoses conversations and writes Actions with a model. It implements
// analyzer.Analyzer and is safe for concurrent use; callers bound the concurrency.
type Analyzer struct {
	cfg       Config
	client    *openai.Client
	prompts   *prompts
	diagnosis *schema
	action    *schema
}

var _ analyzer.Analyzer = (*Analyzer)(nil)

// New checks cfg, fills its defaults and prepares the client, the schemas and the
// prompts. It makes no network call.
func New(cfg Config) (*Analyzer, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	p, err := loadPrompts(cfg.MaxPromptChars)
	if err != nil {
		return nil, err
	}
	d, err := loadSchema(schemaDiagnosis)
	if err != nil {
		return nil, err
	}
	act, err := loadSchema(schemaAction)
	if err != nil {
		return nil, err
	}
	return &Analyzer{cfg: cfg, client: newClient(cfg), prompts: p, diagnosis: d, action: act}, nil
}

// Info names the analyzer, model and prompt version for the task's config.
func (a *Analyzer) Info() analyzer.Info {
	return analyzer.Info{Name: "llm", Label: "LLM analysis", Model: a.cfg.Model, PromptVersion: PromptVersion}
}

// Diagnose reads one conversation. An answer that stays invalid after the one repair
// is an error wrapping analyzer.ErrInvalidOutput; a model that cannot be reached, one
// wrapping ErrUnavailable; a cancelled ctx, one wrapping ctx.Err(). The Result's
// Adjustments count the turns left out of the prompt and what was removed from the
// answer.
func (a *Analyzer) Diagnose(ctx context.Context, conv transcript.Conversation) (analyzer.Result[analyzer.Diagnosis], error) {
	inline := a.cfg.JSONMode == JSONModeObject
	msgs, adj, err := a.prompts.diagnose(conv, a.diagnosis, inline, analyzer.LanguageOf(ctx))
	if err != nil {
		return analyzer.Result[analyzer.Diagnosis]{}, err
	}
	turns := len(conv.Messages)
	res, err := run(ctx, a, unit[analyzer.Diagnosis]{
		stage:    StageDiagnose,
		schema:   a.diagnosis,
		messages: msgs,
		normalize: func(d analyzer.Diagnosis) (analyzer.Diagnosis, analyzer.Adjustments) {
			return normalizeDiagnosis(d, turns)
		},
	})
	res.Adjusted = res.Adjusted.Add(adj)
	return res, err
}

// WriteAction writes the Action for one issue cluster, with the same errors as
// Diagnose.
func (a *Analyzer) WriteAction(ctx context.Context, brief analyzer.ClusterBrief) (analyzer.Result[analyzer.Action], error) {
	inline := a.cfg.JSONMode == JSONModeObject
	msgs, err := a.prompts.action(brief, a.action, inline, analyzer.LanguageOf(ctx))
	if err != nil {
		return analyzer.Result[analyzer.Action]{}, err
	}
	return run(ctx, a, unit[analyzer.Action]{
		stage:    StageAction,
		schema:   a.action,
		messages: msgs,
		normalize: func(act analyzer.Action) (analyzer.Action, analyzer.Adjustments) {
			return analyzer.NormalizeAction(act), analyzer.Adjustments{}
		},
	})
}
