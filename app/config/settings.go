package config

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/checkup-dev/checkup/db/locale"
)

// Setting describes one environment variable: its default and what it is for.
type Setting struct {
	Name        string
	Default     string
	Description string
	Secret      bool // masked in the configuration summary
	field
}

// field binds a setting to the Config field it fills: parse reads the raw value into
// it, show renders the effective value back for the configuration summary.
type field struct {
	parse func(raw string) (warning locale.Text, err error)
	show  func() string
}

// Settings lists every setting with its default and description, in the order of
// `--help` and the README.
func Settings() []Setting { return settings(&Config{}) }

// settings binds each setting to the field of cfg it fills.
func settings(cfg *Config) []Setting {
	return []Setting{
		{"ADDR", "127.0.0.1:8080", "host:port the web server listens on", false, hostPort(&cfg.Addr)},
		{"BASE_URL", "", "public URL of the dashboard, used for OAuth callbacks (default http://ADDR)", false, optionalURL(&cfg.BaseURL)},
		{"DATABASE_URL", "", "PostgreSQL connection URL; empty starts a private cluster in DATA_DIR", true, text(&cfg.DatabaseURL)},
		{"DATA_DIR", ".data", "directory of the private PostgreSQL cluster", false, text(&cfg.DataDir)},
		{"EMBEDDED_WORKER_ENABLED", "true", "run the task worker inside the web process", false, boolean(&cfg.EmbeddedWorker)},
		{"WORKER_POLL_MS", "2000", "idle worker's polling interval in ms (NOTIFY wakes it sooner)", false, millis(&cfg.WorkerPoll, 10, 3_600_000)},
		{"TASK_STALE_MS", "120000", "a running task whose heartbeat is older than this is taken over", false, millis(&cfg.TaskStale, 100, 86_400_000)},
		{"TASK_HEARTBEAT_MS", "", "heartbeat interval in ms (default TASK_STALE_MS/4)", false, optionalMillis(&cfg.TaskHeartbeat, 10, 86_400_000)},
		{"TASK_MAX_ATTEMPTS", "3", "a task whose worker was lost this many times ends failed", false, integer(&cfg.TaskMaxAttempts, 1, 100)},
		{"SHUTDOWN_GRACE_MS", "30000", "how long shutdown lets in-flight units finish before handing the task back", false, millis(&cfg.ShutdownGrace, 0, 3_600_000)},
		{"MIN_CONVERSATIONS", "5", "fewest usable conversations a diagnosis needs: an upload with fewer is refused with the reasons", false, integer(&cfg.MinConversations, 1, 1_000_000)},
		{"MAX_DIAGNOSED", "0", "most conversations diagnosed per task: all flagged plus a sample (0 = all)", false, integer(&cfg.MaxDiagnosed, 0, 10_000_000)},
		{"DIAGNOSIS_CONCURRENCY", "2", "conversation diagnoses in flight per task (1-4)", false, integer(&cfg.DiagnosisConcurrency, 1, 4)},
		{"ACTION_CONCURRENCY", "2", "Action calls in flight per task (1-4; an invalid value falls back to 2 with a warning)", false, lenientInteger(&cfg.ActionConcurrency, 1, 4, 2)},
		{"MAX_UPLOAD_MB", "200", "largest upload accepted, in MB", false, integer(&cfg.MaxUploadMB, 1, 10_240)},
		{"MAX_UNFINISHED_TASKS", "20", "diagnoses one user may have waiting or running at once, uploads and re-runs together (0 = any number); the queue runs the oldest first, so this keeps one user from holding everyone else's behind theirs", false, integer(&cfg.MaxUnfinishedTasks, 0, 1_000_000)},
		{"API_RATE_PER_MINUTE", "120", "API requests one personal access token may make per minute, on average", false, integer(&cfg.APIRatePerMinute, 1, 1_000_000)},
		{"API_RATE_BURST", "30", "API requests one token may make at once before API_RATE_PER_MINUTE paces it", false, integer(&cfg.APIRateBurst, 1, 1_000_000)},
		{"OPENAI_API_KEY", "", "API key; when set, the LLM analyzer replaces the offline one", true, text(&cfg.OpenAIAPIKey)},
		{"OPENAI_BASE_URL", "https://api.openai.com/v1", "any OpenAI-compatible endpoint (OpenAI, DeepSeek, vLLM, Ollama)", false, requiredURL(&cfg.OpenAIBaseURL)},
		{"OPENAI_MODEL", "gpt-4o-mini", "model name for diagnosis and Actions", false, text(&cfg.OpenAIModel)},
		{"LLM_JSON_MODE", "schema", "schema (strict JSON Schema) or object (for servers without schema support)", false, oneOf(&cfg.LLMJSONMode, "schema", "object")},
		{"LLM_TIMEOUT_MS", "60000", "timeout of one LLM call in ms", false, millis(&cfg.LLMTimeout, 100, 3_600_000)},
		{"LLM_OUTAGE_MAX_MS", "900000", "how long a task waits for a model provider that does not answer before it fails, in ms", false, millis(&cfg.LLMOutageMax, 1000, 86_400_000)},
		{"LLM_MAX_PROMPT_CHARS", "48000", "most characters one LLM request carries; longer conversations lose turns from the middle, marked and counted", false, integer(&cfg.LLMMaxPromptChars, 20_000, 2_000_000)},
		{"GITHUB_CLIENT_ID", "", "GitHub OAuth app client id (enables GitHub sign-in)", false, text(&cfg.GitHubClientID)},
		{"GITHUB_CLIENT_SECRET", "", "GitHub OAuth app client secret", true, text(&cfg.GitHubClientSecret)},
		{"GOOGLE_CLIENT_ID", "", "Google OAuth client id (enables Google sign-in)", false, text(&cfg.GoogleClientID)},
		{"GOOGLE_CLIENT_SECRET", "", "Google OAuth client secret", true, text(&cfg.GoogleClientSecret)},
		{"OIDC_DISCOVERY_URL", "", "OpenID Connect discovery URL (enables sign-in with that issuer)", false, optionalURL(&cfg.OIDCDiscoveryURL)},
		{"OIDC_CLIENT_ID", "", "OpenID Connect client id", false, text(&cfg.OIDCClientID)},
		{"OIDC_CLIENT_SECRET", "", "OpenID Connect client secret", true, text(&cfg.OIDCClientSecret)},
		{"AUTH_ALLOWED_EMAIL_DOMAINS", "", "comma-separated email domains allowed to sign in (empty = any)", false, domains(&cfg.AllowedDomains)},
		{"AUTH_DEV_LOGIN", "false", "offer the local name-and-email sign-in even with providers or off loopback", false, boolean(&cfg.DevLogin)},
		{"LOG_FORMAT", "text", "log format: text or json", false, oneOf(&cfg.LogFormat, "text", "json")},
		{"LOG_LEVEL", "info", "log level: debug, info, warn or error", false, oneOf(&cfg.LogLevel, "debug", "info", "warn", "error")},
		{"RETENTION_DAYS", "0", "delete finished tasks older than this many days (0 = keep)", false, integer(&cfg.RetentionDays, 0, 36_500)},
		{"METRICS_ADDR", "", "host:port where /metrics and /healthz are served apart from the pages (empty: `app` serves them on ADDR, `app worker` nowhere)", false, optionalHostPort(&cfg.MetricsAddr)},
	}
}

func text(dst *string) field {
	return field{func(raw string) (locale.Text, error) { *dst = raw; return locale.Text{}, nil }, showString(dst)}
}

func oneOf(dst *string, allowed ...string) field {
	return field{func(raw string) (locale.Text, error) {
		v := strings.ToLower(raw)
		for _, a := range allowed {
			if v == a {
				*dst = v
				return locale.Text{}, nil
			}
		}
		return locale.Text{}, fmt.Errorf("must be one of %s", strings.Join(allowed, ", "))
	}, showString(dst)}
}

func boolean(dst *bool) field {
	return field{func(raw string) (locale.Text, error) {
		v, err := strconv.ParseBool(raw)
		if err != nil {
			return locale.Text{}, errors.New("must be true or false")
		}
		*dst = v
		return locale.Text{}, nil
	}, func() string { return strconv.FormatBool(*dst) }}
}

func integer(dst *int, min, max int) field {
	return field{func(raw string) (locale.Text, error) {
		v, err := strconv.Atoi(raw)
		if err != nil || v < min || v > max {
			return locale.Text{}, fmt.Errorf("must be a whole number from %d to %d", min, max)
		}
		*dst = v
		return locale.Text{}, nil
	}, func() string { return strconv.Itoa(*dst) }}
}

// lenientInteger accepts an out-of-range or malformed value with a warning and the
// fallback, for settings where refusing to start would cost more than the default.
func lenientInteger(dst *int, min, max, fallback int) field {
	strict := integer(dst, min, max)
	return field{func(raw string) (locale.Text, error) {
		if _, err := strict.parse(raw); err != nil {
			*dst = fallback
			return locale.Msg("task_warning.setting_range", "Min", strconv.Itoa(min), "Max", strconv.Itoa(max),
				"Fallback", strconv.Itoa(fallback)), nil
		}
		return locale.Text{}, nil
	}, strict.show}
}

func millis(dst *time.Duration, min, max int) field {
	var ms int
	parse := integer(&ms, min, max).parse
	return field{func(raw string) (locale.Text, error) {
		if _, err := parse(raw); err != nil {
			return locale.Text{}, fmt.Errorf("must be a number of milliseconds from %d to %d", min, max)
		}
		*dst = time.Duration(ms) * time.Millisecond
		return locale.Text{}, nil
	}, func() string { return strconv.FormatInt(dst.Milliseconds(), 10) }}
}

func optionalMillis(dst *time.Duration, min, max int) field {
	f := millis(dst, min, max)
	return field{func(raw string) (locale.Text, error) {
		if raw == "" {
			return locale.Text{}, nil
		}
		return f.parse(raw)
	}, f.show}
}

func hostPort(dst *string) field {
	return field{func(raw string) (locale.Text, error) {
		if _, port, err := net.SplitHostPort(raw); err != nil || port == "" {
			return locale.Text{}, errors.New("must be host:port, for example 127.0.0.1:8080 or :8080")
		}
		*dst = raw
		return locale.Text{}, nil
	}, showString(dst)}
}

func optionalHostPort(dst *string) field {
	f := hostPort(dst)
	return field{func(raw string) (locale.Text, error) {
		if raw == "" {
			return locale.Text{}, nil
		}
		return f.parse(raw)
	}, f.show}
}

func requiredURL(dst *string) field {
	return field{func(raw string) (locale.Text, error) {
		if err := validURL(raw); err != nil {
			return locale.Text{}, err
		}
		*dst = strings.TrimRight(raw, "/")
		return locale.Text{}, nil
	}, showString(dst)}
}

func optionalURL(dst *string) field {
	f := requiredURL(dst)
	return field{func(raw string) (locale.Text, error) {
		if raw == "" {
			return locale.Text{}, nil
		}
		return f.parse(raw)
	}, f.show}
}

func domains(dst *[]string) field {
	return field{func(raw string) (locale.Text, error) {
		for _, d := range strings.Split(raw, ",") {
			d = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(d), "@"))
			if d == "" {
				continue
			}
			if strings.ContainsAny(d, " @/") || !strings.Contains(d, ".") {
				return locale.Text{}, fmt.Errorf("%q is not a domain; use a comma-separated list like example.com,example.org", d)
			}
			*dst = append(*dst, d)
		}
		return locale.Text{}, nil
	}, func() string { return strings.Join(*dst, ",") }}
}

func showString(dst *string) func() string { return func() string { return *dst } }
