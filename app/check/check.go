// Package check is `app check`, the CI step of the README: it uploads an export to a
// Checkup server through the API with a personal access token, waits for the
// diagnosis, compares it with the previous run of the same title and fails when an
// issue cluster got significantly worse. It is a client of the documented API
// (/api/v1/openapi.json): of the server it shares only the comparison's types and its
// rule for a regression (report/compare), so the check and the compare page agree.
package check

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// The exit codes of `app check`, documented in the README.
const (
	// Passed: no cluster got significantly worse, or there was no previous run.
	Passed = 0
	// Regressed: at least one cluster got significantly worse than in the baseline.
	Regressed = 1
	// Usage: a flag is missing or wrong.
	Usage = 2
	// Refused: the server refused a request (the file, the token) or could not be
	// reached; the message says which and why.
	Refused = 3
	// NoResults: the diagnosis ended without results (failed, not enough data,
	// canceled) or did not end within --timeout.
	NoResults = 4
)

// ExitError is a check that ended with an exit code other than Passed.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

func exit(code int, format string, args ...any) error {
	return &ExitError{Code: code, Err: fmt.Errorf(format, args...)}
}

// Config is what a check is run with, from its flags and environment.
type Config struct {
	URL      string        // the server's BASE_URL
	Token    string        // a personal access token (ck_…)
	File     string        // the export to upload
	Title    string        // the task's title; runs of one title are compared
	Baseline string        // "last" (the previous finished run of Title), a task id, or "none"
	Timeout  time.Duration // how long to wait for the diagnosis
	Poll     time.Duration // how often to ask for its progress
}

// Parse reads args (after `check`) and the CHECKUP_URL and CHECKUP_TOKEN variables,
// which the flags override; keeping the token in the environment keeps it out of the
// job's command line and log. The variables are read after the flags, never as the
// flags' defaults, so --help (which prints the usage and returns flag.ErrHelp) never
// prints a token into the job's log.
func Parse(args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet("app check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg Config
	fs.StringVar(&cfg.URL, "url", "", "the Checkup server, e.g. https://checkup.example.com (default: CHECKUP_URL)")
	fs.StringVar(&cfg.Token, "token", "", "a personal access token from /settings/tokens (default: CHECKUP_TOKEN)")
	fs.StringVar(&cfg.File, "file", "", "the export to upload (any format the upload page takes, optionally gzipped)")
	fs.StringVar(&cfg.Title, "title", "", "the diagnosis' title; runs with the same title are compared (default: the file's name)")
	fs.StringVar(&cfg.Baseline, "baseline", "last", `what to compare with: "last" (the previous finished run of the title), a diagnosis id, or "none"`)
	fs.DurationVar(&cfg.Timeout, "timeout", 30*time.Minute, "how long to wait for the diagnosis")
	fs.DurationVar(&cfg.Poll, "poll", 5*time.Second, "how often to ask how far the diagnosis is")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return Config{}, err
		}
		return Config{}, exit(Usage, "app check: %w", err)
	}
	cfg.URL = cmp.Or(cfg.URL, getenv("CHECKUP_URL"))
	cfg.Token = cmp.Or(cfg.Token, getenv("CHECKUP_TOKEN"))
	var problems []string
	if cfg.URL == "" {
		problems = append(problems, "--url (or CHECKUP_URL) is required")
	}
	if cfg.Token == "" {
		problems = append(problems, "--token (or CHECKUP_TOKEN) is required")
	} else if !strings.HasPrefix(cfg.Token, "ck_") {
		problems = append(problems, "--token must be a personal access token, starting with ck_")
	}
	if cfg.File == "" {
		problems = append(problems, "--file is required")
	}
	if cfg.Timeout <= 0 || cfg.Poll <= 0 {
		problems = append(problems, "--timeout and --poll must be positive durations, such as 30m and 5s")
	}
	if fs.NArg() > 0 {
		problems = append(problems, "unexpected arguments: "+strings.Join(fs.Args(), " "))
	}
	if len(problems) > 0 {
		return Config{}, exit(Usage, "app check: %s (see app check --help)", strings.Join(problems, "; "))
	}
	cfg.URL = strings.TrimRight(cfg.URL, "/")
	return cfg, nil
}

const usage = `app check uploads an export to Checkup, waits for the diagnosis and compares it with
the previous run of the same title. It fails when an issue cluster got significantly
worse (or a new one is significantly more than none).

Exit codes: 0 passed (or no previous run), 1 a cluster got significantly worse,
2 a flag is wrong, 3 the server refused a request or could not be reached,
4 the diagnosis ended without results or did not end in time.

Usage: app check --url URL --file EXPORT [--title TITLE] [--baseline last|ID|none]

Flags:
`

// Run runs the check and writes what it does to out; the error is an *ExitError
// unless the check passed.
func Run(ctx context.Context, cfg Config, out io.Writer) error {
	// The upload's waits for the rate limit end with --timeout; wait then gives the
	// diagnosis the whole --timeout, however long the upload took.
	c := newClient(cfg.URL, cfg.Token, out, time.Now().Add(cfg.Timeout))
	task, err := c.upload(ctx, cfg.File, cfg.Title)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Uploaded %d conversations (%s) as %q: %s\n", task.Upload.Conversations, printable(task.Upload.Format), task.Title, printable(task.HTMLURL))
	task, err = c.wait(ctx, task, cfg.Timeout, cfg.Poll, out)
	if err != nil {
		return err
	}
	if !task.concluded() {
		return exit(NoResults, "the diagnosis ended %s without results: %s (%s)", printable(string(task.Status)), printable(task.Error), printable(task.HTMLURL))
	}
	fmt.Fprintf(out, "The diagnosis is %s.\n", printable(task.Status))
	baseline, err := c.baseline(ctx, task, cfg.Baseline)
	if err != nil {
		return err
	}
	if baseline == "" {
		fmt.Fprintf(out, "No earlier finished run of %q to compare with: nothing to fail on.\n", task.Title)
		return nil
	}
	comparison, err := c.compare(ctx, task.ID, baseline)
	if err != nil {
		return err
	}
	warnOtherAgent(comparison, out)
	return verdict(comparison, out)
}
