package config_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/config"
)

func TestSummaryShowsEffectiveSettingsAndMasksSecrets(t *testing.T) {
	t.Parallel()
	cfg, _, err := config.Load(env(map[string]string{
		"DATABASE_URL":         "postgres://checkup:db-pass-123@db.internal:5432/checkup?sslmode=require&password=db-pass-123",
		"OPENAI_API_KEY":       "sk-secret-456",
		"GITHUB_CLIENT_ID":     "gh-id",
		"GITHUB_CLIENT_SECRET": "gh-secret-789",
		"TASK_STALE_MS":        "8000",
	}))
	require.NoError(t, err)

	got := map[string]string{}
	var all strings.Builder
	for _, a := range config.Summary(cfg) {
		got[a.Key] = a.Value.String()
		fmt.Fprintf(&all, "%s=%s ", a.Key, a.Value)
	}

	require.Len(t, got, len(config.Settings()), "every setting is listed")
	require.Equal(t, "postgres://checkup@db.internal:5432/checkup", got["database_url"])
	require.Equal(t, "********", got["openai_api_key"])
	require.Equal(t, "********", got["github_client_secret"])
	require.Equal(t, "gh-id", got["github_client_id"], "client ids are not secret")
	require.Empty(t, got["google_client_secret"], "an unset secret shows as empty")
	require.Equal(t, "2000", got["task_heartbeat_ms"], "the derived default is shown")
	require.Equal(t, "8000", got["task_stale_ms"])
	require.Equal(t, "true", got["embedded_worker_enabled"])
	require.Equal(t, "http://127.0.0.1:8080", got["base_url"])
	for _, secret := range []string{"db-pass-123", "sk-secret-456", "gh-secret-789"} {
		require.NotContains(t, all.String(), secret)
	}
}

func TestSummaryMasksADatabaseURLThatIsNotAURL(t *testing.T) {
	t.Parallel()
	cfg, _, err := config.Load(env(map[string]string{"DATABASE_URL": "host=db password=kv-secret dbname=checkup"}))
	require.NoError(t, err)
	for _, a := range config.Summary(cfg) {
		if a.Key == "database_url" {
			require.Equal(t, "********", a.Value.String())
		}
	}
}

func TestSummaryShowsTheSocketOfADatabaseURL(t *testing.T) {
	t.Parallel()
	cfg, _, err := config.Load(env(map[string]string{
		"DATABASE_URL": "postgres://checkup:db-pass-123@/checkup?host=%2Fsrv%2Fdata%2C127.0.0.1&port=5433&sslmode=disable",
	}))
	require.NoError(t, err)
	for _, a := range config.Summary(cfg) {
		if a.Key == "database_url" {
			require.Equal(t, "postgres://checkup@/checkup?host=%2Fsrv%2Fdata%2C127.0.0.1&port=5433", a.Value.String())
		}
	}
}
