package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/checkup-dev/checkup/app/config"
)

const usage = `Checkup gives a production AI agent a health check from its conversation logs.

Usage:
  app                    serve the dashboard on ADDR with the embedded worker
  app worker             run the task worker alone, printing what it does
  app worker --task ID   run one task in the foreground
  app migrate            migrate the database and exit
  app --help             show this help and the settings

Settings (environment variables):
`

// run parses the command line and runs the chosen command until ctx ends or a signal
// arrives.
func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	if cmd == "-h" || cmd == "--help" || cmd == "help" {
		printHelp(stdout)
		return nil
	}
	cfg, warnings, err := config.Load(getenv)
	if err != nil {
		return fmt.Errorf("invalid configuration (see `go run ./app --help`):\n  %s",
			strings.ReplaceAll(err.Error(), "\n", "\n  "))
	}
	logger := newLogger(cfg, stdout)
	for _, w := range warnings {
		logger.Warn("setting corrected", "problem", w)
	}
	switch cmd {
	case "serve":
		return serve(ctx, cfg, logger)
	case "migrate":
		return migrate(ctx, cfg, logger)
	case "worker":
		return worker(ctx, cfg, logger, args)
	}
	return errors.New("unknown command " + cmd + ": use serve, worker or migrate (see --help)")
}

func printHelp(w io.Writer) {
	fmt.Fprint(w, usage)
	for _, s := range config.Settings() {
		def := s.Default
		if def == "" {
			def = "(unset)"
		}
		fmt.Fprintf(w, "  %-27s %-27s %s\n", s.Name, def, s.Description)
	}
}

func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
