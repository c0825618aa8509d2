// Package config reads every setting of Checkup from the environment in one place,
// validates it and fills in defaults, so the rest of the program receives a finished
// Config and never reads the environment itself.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/checkup-dev/checkup/db/locale"
)

// Config is the validated configuration of one Checkup process.
type Config struct {
	Addr    string // ADDR
	BaseURL string // BASE_URL; derived from Addr when empty

	DatabaseURL string // DATABASE_URL; empty starts the embedded cluster
	DataDir     string // DATA_DIR

	EmbeddedWorker  bool          // EMBEDDED_WORKER_ENABLED
	WorkerPoll      time.Duration // WORKER_POLL_MS
	TaskStale       time.Duration // TASK_STALE_MS
	TaskHeartbeat   time.Duration // TASK_HEARTBEAT_MS; TaskStale/4 when unset
	TaskMaxAttempts int           // TASK_MAX_ATTEMPTS
	ShutdownGrace   time.Duration // SHUTDOWN_GRACE_MS

	MinConversations     int // MIN_CONVERSATIONS
	MaxDiagnosed         int // MAX_DIAGNOSED; 0 diagnoses every kept conversation
	DiagnosisConcurrency int // DIAGNOSIS_CONCURRENCY
	ActionConcurrency    int // ACTION_CONCURRENCY
	MaxUploadMB          int // MAX_UPLOAD_MB
	MaxUnfinishedTasks   int // MAX_UNFINISHED_TASKS; 0 lets a user queue any number

	APIRatePerMinute int // API_RATE_PER_MINUTE: each token's average request rate
	APIRateBurst     int // API_RATE_BURST: each token's requests at once

	OpenAIAPIKey  string        // OPENAI_API_KEY; set selects the LLM analyzer
	OpenAIBaseURL string        // OPENAI_BASE_URL
	OpenAIModel   string        // OPENAI_MODEL
	LLMJSONMode   string        // LLM_JSON_MODE: schema or object
	LLMTimeout    time.Duration // LLM_TIMEOUT_MS
	LLMOutageMax  time.Duration // LLM_OUTAGE_MAX_MS
	// LLMMaxPromptChars is LLM_MAX_PROMPT_CHARS.
	LLMMaxPromptChars int

	GitHubClientID     string   // GITHUB_CLIENT_ID
	GitHubClientSecret string   // GITHUB_CLIENT_SECRET
	GoogleClientID     string   // GOOGLE_CLIENT_ID
	GoogleClientSecret string   // GOOGLE_CLIENT_SECRET
	OIDCDiscoveryURL   string   // OIDC_DISCOVERY_URL
	OIDCClientID       string   // OIDC_CLIENT_ID
	OIDCClientSecret   string   // OIDC_CLIENT_SECRET
	AllowedDomains     []string // AUTH_ALLOWED_EMAIL_DOMAINS
	DevLogin           bool     // AUTH_DEV_LOGIN

	LogFormat     string // LOG_FORMAT: text or json
	LogLevel      string // LOG_LEVEL: debug, info, warn or error
	RetentionDays int    // RETENTION_DAYS; 0 keeps tasks forever
	MetricsAddr   string // METRICS_ADDR; where /metrics is served apart from the pages, empty for ADDR (`app`) or nowhere (`app worker`)

	// Corrected holds Load's warnings: settings corrected instead of refused (an
	// ACTION_CONCURRENCY out of range), which the pipeline repeats on every task. They
	// are catalog messages, so each task's reader reads them in their language.
	Corrected []locale.Text
}

// Load reads the settings through getenv (os.Getenv in production, a map in tests).
// It returns every invalid setting at once, each naming its variable and the values it
// accepts, and warnings for settings that were corrected instead of refused.
func Load(getenv func(string) string) (Config, []locale.Text, error) {
	var (
		cfg      Config
		errs     []error
		warnings []locale.Text
	)
	for _, s := range settings(&cfg) {
		raw := strings.TrimSpace(getenv(s.Name))
		if raw == "" {
			raw = s.Default
		}
		warning, err := s.parse(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: %w", s.Name, raw, err))
		}
		if !warning.IsZero() {
			warnings = append(warnings, locale.Msg("task_warning.setting_corrected",
				"Setting", s.Name, "Value", strconv.Quote(raw), "Problem", warning))
		}
	}
	errs = append(errs, cfg.derive()...)
	if len(errs) > 0 {
		return Config{}, warnings, errors.Join(errs...)
	}
	cfg.Corrected = warnings
	return cfg, warnings, nil
}

// derive fills the settings whose defaults depend on others and checks the
// combinations that no single setting can.
func (c *Config) derive() []error {
	var errs []error
	if c.TaskHeartbeat == 0 {
		c.TaskHeartbeat = c.TaskStale / 4
	}
	if c.TaskHeartbeat >= c.TaskStale {
		errs = append(errs, fmt.Errorf("TASK_HEARTBEAT_MS (%d) must be less than TASK_STALE_MS (%d), or a live task would look lost",
			c.TaskHeartbeat.Milliseconds(), c.TaskStale.Milliseconds()))
	}
	if c.BaseURL == "" {
		c.BaseURL = "http://" + c.Addr
	}
	if (c.GitHubClientID == "") != (c.GitHubClientSecret == "") {
		errs = append(errs, errors.New("GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET must be set together"))
	}
	if (c.GoogleClientID == "") != (c.GoogleClientSecret == "") {
		errs = append(errs, errors.New("GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET must be set together"))
	}
	if c.OIDCDiscoveryURL != "" && c.OIDCClientID == "" {
		errs = append(errs, errors.New("OIDC_CLIENT_ID is required when OIDC_DISCOVERY_URL is set"))
	}
	return errs
}

// OAuthConfigured reports whether any identity provider is enabled.
func (c Config) OAuthConfigured() bool {
	return c.GitHubClientID != "" || c.GoogleClientID != "" || c.OIDCDiscoveryURL != ""
}

// LocalSignIn reports whether the name-and-email sign-in is offered: only when no
// provider is configured and the server is reachable on loopback alone — it listens on
// loopback and its public URL is a loopback one, so a reverse proxy on the same host
// does not publish it — or when forced on.
func (c Config) LocalSignIn() bool {
	return c.DevLogin || (!c.OAuthConfigured() && isLoopback(c.Addr) && loopbackURL(c.BaseURL))
}

func loopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && isLoopback(net.JoinHostPort(u.Hostname(), "0"))
}

// UseLLM reports whether the LLM analyzer is selected.
func (c Config) UseLLM() bool { return c.OpenAIAPIKey != "" }

// MaxUploadBytes is MAX_UPLOAD_MB in bytes.
func (c Config) MaxUploadBytes() int64 { return int64(c.MaxUploadMB) << 20 }

// SecureCookies reports whether cookies must carry the Secure attribute.
func (c Config) SecureCookies() bool { return strings.HasPrefix(c.BaseURL, "https://") }

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func validURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("must be an http:// or https:// URL")
	}
	return nil
}
