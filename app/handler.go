package main

import (
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/llm"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/pipeline"
)

// newHandler returns the task handler every worker of this binary runs: the diagnosis
// pipeline, with the LLM analyzer when OPENAI_API_KEY is set and the offline one
// otherwise. observe is told about every model call (the metrics).
func newHandler(pool *pgxpool.Pool, cfg config.Config, observe llm.Observer, logger *slog.Logger) (workers.Handler, error) {
	a, err := newAnalyzer(cfg, observe, logger)
	if err != nil {
		return nil, err
	}
	return pipeline.New(pool, a, pipeline.Options{
		MinConversations:     cfg.MinConversations,
		MaxDiagnosed:         cfg.MaxDiagnosed,
		DiagnosisConcurrency: cfg.DiagnosisConcurrency,
		ActionConcurrency:    cfg.ActionConcurrency,
		SettingWarnings:      cfg.Corrected,
		OutageMax:            cfg.LLMOutageMax,
	}), nil
}

// newAnalyzer chooses the analyzer: the model at OPENAI_BASE_URL when an API key is
// set, the offline rules otherwise.
func newAnalyzer(cfg config.Config, observe llm.Observer, logger *slog.Logger) (analyzer.Analyzer, error) {
	if !cfg.UseLLM() {
		return offline.New(offline.Options{}), nil
	}
	a, err := llm.New(llm.Config{
		APIKey: cfg.OpenAIAPIKey, BaseURL: cfg.OpenAIBaseURL, Model: cfg.OpenAIModel,
		JSONMode: cfg.LLMJSONMode, Timeout: cfg.LLMTimeout, MaxPromptChars: cfg.LLMMaxPromptChars,
		Logger: logger, Observer: observe,
	})
	if err != nil {
		return nil, fmt.Errorf("the LLM analyzer cannot start (check the OPENAI_* and LLM_* settings): %w", err)
	}
	return a, nil
}
