package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/checkup-dev/checkup/app/check"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/db/locale"
)

const usage = `Checkup gives a production AI agent a health check from its conversation logs.

Usage:
  app                    serve the dashboard on ADDR with the embedded worker
  app worker             run the task worker alone, printing what it does
  app worker --task ID   run one task in the foreground
  app migrate            migrate the database and exit
  app check --url URL --file EXPORT
                         upload EXPORT through the API, wait for the diagnosis and fail
                         when a cluster got significantly worse than the previous run
                         (app check --help for its flags and exit codes)
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
	if cmd == "check" {
		// A client of a server elsewhere: it needs none of the server's settings.
		return runCheck(ctx, args, getenv, stdout)
	}
	cfg, warnings, err := config.Load(getenv)
	if err != nil {
		return fmt.Errorf("invalid configuration (see `go run ./app --help`):\n  %s",
			strings.ReplaceAll(err.Error(), "\n", "\n  "))
	}
	logger := newLogger(cfg, stdout)
	if err := logCorrected(logger, warnings); err != nil {
		return err
	}
	switch cmd {
	case "serve":
		applyGCDefaults(getenv)
		return serve(ctx, cfg, logger)
	case "migrate":
		return migrate(ctx, cfg, logger)
	case "worker":
		applyGCDefaults(getenv)
		return worker(ctx, cfg, logger, args)
	}
	return errors.New("unknown command " + cmd + ": use serve, worker, migrate or check (see --help)")
}

// logCorrected logs the settings Load corrected, in English, as the operator reads them.
func logCorrected(logger *slog.Logger, warnings []locale.Text) error {
	if len(warnings) == 0 {
		return nil
	}
	words, err := locale.New()
	if err != nil {
		return fmt.Errorf("app: %w", err)
	}
	for _, w := range warnings {
		logger.Warn("setting corrected", "problem", words.English().Text(w))
	}
	return nil
}

// runCheck is `app check`; its exit code is in the *check.ExitError it returns.
func runCheck(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := check.Parse(args, getenv, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return check.Run(ctx, cfg, stdout)
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
	fmt.Fprintf(w, "  %-27s %-27d %s\n", "GOGC", defaultGCPercent, "Go's garbage collector target, read by Go itself")
	fmt.Fprintf(w, "  %-27s %-27s %s\n", "GOMEMLIMIT", fmt.Sprintf("%dMiB", defaultMemoryLimit>>20), "Go's soft memory limit, read by Go itself; by default at most half a container's memory limit")
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
