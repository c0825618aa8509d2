package config_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/db/locale/localetest"
)

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	cfg, warnings, err := config.Load(env(nil))
	require.NoError(t, err)
	require.Empty(t, warnings)
	require.Equal(t, "127.0.0.1:8080", cfg.Addr)
	require.Equal(t, "http://127.0.0.1:8080", cfg.BaseURL)
	require.Equal(t, ".data", cfg.DataDir)
	require.True(t, cfg.EmbeddedWorker)
	require.Equal(t, 2*time.Second, cfg.WorkerPoll)
	require.Equal(t, 120*time.Second, cfg.TaskStale)
	require.Equal(t, 30*time.Second, cfg.TaskHeartbeat, "heartbeat defaults to stale/4")
	require.Equal(t, 3, cfg.TaskMaxAttempts)
	require.Equal(t, 30*time.Second, cfg.ShutdownGrace)
	require.Equal(t, 5, cfg.MinConversations)
	require.Equal(t, 2, cfg.DiagnosisConcurrency)
	require.Equal(t, 2, cfg.ActionConcurrency)
	require.Equal(t, int64(200<<20), cfg.MaxUploadBytes())
	require.Equal(t, "schema", cfg.LLMJSONMode)
	require.False(t, cfg.UseLLM())
	require.True(t, cfg.LocalSignIn(), "no provider and loopback: local sign-in")
	require.False(t, cfg.SecureCookies())
}

func TestInvalidSettingsNameVariableAndValues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, value, want string
	}{
		{"ADDR", "8080", "ADDR=\"8080\": must be host:port"},
		{"WORKER_POLL_MS", "soon", "WORKER_POLL_MS=\"soon\": must be a number of milliseconds from 10"},
		{"TASK_MAX_ATTEMPTS", "0", "TASK_MAX_ATTEMPTS=\"0\": must be a whole number from 1 to 100"},
		{"DIAGNOSIS_CONCURRENCY", "9", "DIAGNOSIS_CONCURRENCY=\"9\": must be a whole number from 1 to 4"},
		{"LLM_JSON_MODE", "xml", "LLM_JSON_MODE=\"xml\": must be one of schema, object"},
		{"LOG_LEVEL", "loud", "must be one of debug, info, warn, error"},
		{"EMBEDDED_WORKER_ENABLED", "maybe", "must be true or false"},
		{"OPENAI_BASE_URL", "localhost:1234", "must be an http:// or https:// URL"},
		{"AUTH_ALLOWED_EMAIL_DOMAINS", "example.com, not a domain", "is not a domain"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := config.Load(env(map[string]string{tc.name: tc.value}))
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestAllErrorsAtOnce(t *testing.T) {
	t.Parallel()
	_, _, err := config.Load(env(map[string]string{"ADDR": "x", "LOG_FORMAT": "xml"}))
	require.ErrorContains(t, err, "ADDR")
	require.ErrorContains(t, err, "LOG_FORMAT")
}

func TestActionConcurrencyFallsBackWithWarning(t *testing.T) {
	t.Parallel()
	en, zh := localetest.English(t), localetest.Chinese(t)
	for _, v := range []string{"0", "5", "-1", "two"} {
		cfg, warnings, err := config.Load(env(map[string]string{"ACTION_CONCURRENCY": v}))
		require.NoError(t, err, v)
		require.Equal(t, 2, cfg.ActionConcurrency, v)
		require.Len(t, warnings, 1, v)
		require.Equal(t, "ACTION_CONCURRENCY", warnings[0].Arg("Setting"), "the variable names the task's warning")
		require.Equal(t, `ACTION_CONCURRENCY="`+v+`": must be a whole number from 1 to 4; using 2`, en.Text(warnings[0]))
		require.Equal(t, `ACTION_CONCURRENCY="`+v+`"：必须是 1 到 4 之间的整数；改用 2`, zh.Text(warnings[0]))
	}
	cfg, warnings, err := config.Load(env(map[string]string{"ACTION_CONCURRENCY": "4"}))
	require.NoError(t, err)
	require.Empty(t, warnings)
	require.Equal(t, 4, cfg.ActionConcurrency)
}

func TestCombinations(t *testing.T) {
	t.Parallel()
	_, _, err := config.Load(env(map[string]string{"TASK_STALE_MS": "1000", "TASK_HEARTBEAT_MS": "1000"}))
	require.ErrorContains(t, err, "TASK_HEARTBEAT_MS (1000) must be less than TASK_STALE_MS (1000)")

	_, _, err = config.Load(env(map[string]string{"GITHUB_CLIENT_ID": "id"}))
	require.ErrorContains(t, err, "GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET must be set together")

	cfg, _, err := config.Load(env(map[string]string{"GITHUB_CLIENT_ID": "id", "GITHUB_CLIENT_SECRET": "s"}))
	require.NoError(t, err)
	require.False(t, cfg.LocalSignIn(), "a provider turns local sign-in off")

	cfg, _, err = config.Load(env(map[string]string{"ADDR": ":8080"}))
	require.NoError(t, err)
	require.False(t, cfg.LocalSignIn(), "listening beyond loopback turns local sign-in off")

	cfg, _, err = config.Load(env(map[string]string{"BASE_URL": "https://checkup.example.com"}))
	require.NoError(t, err)
	require.False(t, cfg.LocalSignIn(), "a public URL (a reverse proxy on the same host) turns local sign-in off")

	cfg, _, err = config.Load(env(map[string]string{"BASE_URL": "http://localhost:8080"}))
	require.NoError(t, err)
	require.True(t, cfg.LocalSignIn())

	cfg, _, err = config.Load(env(map[string]string{"ADDR": ":8080", "AUTH_DEV_LOGIN": "true", "BASE_URL": "https://checkup.example.com/"}))
	require.NoError(t, err)
	require.True(t, cfg.LocalSignIn())
	require.True(t, cfg.SecureCookies())
	require.Equal(t, "https://checkup.example.com", cfg.BaseURL)
}

func TestEverySettingDescribed(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, s := range config.Settings() {
		require.NotEmpty(t, s.Description, s.Name)
		require.False(t, seen[s.Name], "duplicate %s", s.Name)
		seen[s.Name] = true
	}
	require.True(t, seen["DATABASE_URL"])
	require.True(t, seen["RETENTION_DAYS"])
}
