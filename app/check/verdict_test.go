package check

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/report/compare"
)

// TestVerdictFailsOnlyOnSignificantRegressions: a worse cluster fails the check, a new
// one only when its share is significantly more than none; better, resolved and same
// clusters never do.
func TestVerdictFailsOnlyOnSignificantRegressions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		change compare.Change
		p      float64
		fails  bool
	}{
		{"worse", "worse", 0.01, true},
		{"new and significant", "new", 0.001, true},
		{"new by chance", "new", 0.2, false},
		{"better", "better", 0.001, false},
		{"resolved", "resolved", 0.001, false},
		{"same", "same", 0.9, false},
	} {
		var out bytes.Buffer
		cmp := compare.Comparison{Clusters: []compare.Cluster{{Type: "ACTION", Category: "tool_error", Title: "Tool call fails", Change: c.change, PValue: c.p,
			Baseline: compare.Side{Conversations: 3, Share: 0.03}, Current: compare.Side{Conversations: 20, Share: 0.2}}}}
		err := verdict(cmp, &out)
		var exit *ExitError
		if c.fails {
			require.True(t, errors.As(err, &exit), c.name)
			require.Equal(t, Regressed, exit.Code, c.name)
			require.Contains(t, exit.Error(), "Tool call fails", c.name)
			require.Contains(t, out.String(), "✗ "+string(c.change), c.name)
		} else {
			require.NoError(t, err, c.name)
			require.Contains(t, out.String(), "No cluster got significantly worse", c.name)
		}
	}
}

// TestParseRefusesWhatCannotWork: every missing or wrong flag is named at once, with
// exit code 2; the token and URL come from the environment when the flags are absent.
func TestParseRefusesWhatCannotWork(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	_, err := Parse([]string{"--timeout", "0s"}, func(string) string { return "" }, &stderr)
	var exit *ExitError
	require.True(t, errors.As(err, &exit))
	require.Equal(t, Usage, exit.Code)
	for _, want := range []string{"--url", "--token", "--file", "--timeout"} {
		require.Contains(t, err.Error(), want)
	}
	_, err = Parse([]string{"--file", "x", "--token", "not-a-token"}, func(k string) string { return map[string]string{"CHECKUP_URL": "http://h"}[k] }, &stderr)
	require.ErrorContains(t, err, "starting with ck_")
	cfg, err := Parse([]string{"--file", "x"}, func(k string) string {
		return map[string]string{"CHECKUP_URL": "https://checkup.example.com/", "CHECKUP_TOKEN": "ck_abc"}[k]
	}, &stderr)
	require.NoError(t, err)
	require.Equal(t, "https://checkup.example.com", cfg.URL)
	require.Equal(t, "ck_abc", cfg.Token)
	require.Equal(t, "last", cfg.Baseline)
}

// TestVerdictPrintsUntrustedTextEscaped: titles and categories come from uploads and
// the model; their terminal escapes, line breaks and direction overrides are printed
// as escapes, in the lines and in the exit error.
func TestVerdictPrintsUntrustedTextEscaped(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	hostile := "Tool \x1b[2J\x1b[31mfails\x1b[0m\r\nok \u202egnp.exe \xff"
	cmp := compare.Comparison{Baseline: compare.Run{Title: hostile}, Clusters: []compare.Cluster{{Type: "ACTION", Category: "bad\x07", Title: hostile,
		Change: "worse", PValue: 0.01, Baseline: compare.Side{Conversations: 3, Share: 0.03}, Current: compare.Side{Conversations: 20, Share: 0.2}}}}
	err := verdict(cmp, &out)
	require.Error(t, err)
	for _, text := range []string{out.String(), err.Error()} {
		require.NotContains(t, text, "\x1b")
		require.NotContains(t, text, "\u202e")
		require.NotContains(t, text, "\r")
		require.Contains(t, text, `Tool \x1b[2J\x1b[31mfails\x1b[0m\x0d\x0aok \u202egnp.exe \xff`)
	}
	require.Contains(t, out.String(), `[ACTION bad\x07]`)
}

// TestRefusalPrintsTheServersTextEscaped: a refused file's problems quote the upload,
// so they are printed with their terminal escapes as escapes.
func TestRefusalPrintsTheServersTextEscaped(t *testing.T) {
	t.Parallel()
	body := `{"error": "The file was refused.", "field": "file", "problems": ["line 2: \u001b]0;owned\u0007 is not JSON"]}`
	resp := &http.Response{Status: "422 Unprocessable Entity", StatusCode: 422, Body: io.NopCloser(strings.NewReader(body))}
	err := refusal(http.MethodPost, "/api/v1/tasks", resp)
	require.NotContains(t, err.Error(), "\x1b")
	require.NotContains(t, err.Error(), "\x07")
	require.Contains(t, err.Error(), `line 2: \x1b]0;owned\x07 is not JSON`)
}

// TestHelpNeverPrintsTheToken: the token and URL are read from the environment after
// the flags, so the usage --help prints into a job's log never holds them.
func TestHelpNeverPrintsTheToken(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	env := func(k string) string {
		return map[string]string{"CHECKUP_URL": "https://checkup.internal.example", "CHECKUP_TOKEN": "ck_secretsecret"}[k]
	}
	_, err := Parse([]string{"--help"}, env, &stderr)
	require.ErrorIs(t, err, flag.ErrHelp)
	require.Contains(t, stderr.String(), "-token")
	require.NotContains(t, stderr.String(), "ck_secretsecret")
	require.NotContains(t, stderr.String(), "checkup.internal.example")
	cfg, err := Parse([]string{"--file", "x", "--token", "ck_flag"}, env, &stderr)
	require.NoError(t, err)
	require.Equal(t, "ck_flag", cfg.Token, "a flag wins over the environment")
}

// TestWarnsWhenTheBaselineIsAnotherAgent: comparing with another agent's run compares
// two agents; the check says so before its verdict.
func TestWarnsWhenTheBaselineIsAnotherAgent(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	cmp := compare.Comparison{Baseline: compare.Run{ID: "b1", Agent: "Retail bot"}, Current: compare.Run{ID: "c1", Agent: "Airline bot"}}
	warnOtherAgent(cmp, &out)
	require.Equal(t, "Warning: the baseline b1 is a run of the agent \"Retail bot\", this one of \"Airline bot\": the comparison is between two agents, not of one over time.\n", out.String())
	out.Reset()
	cmp.Baseline.Agent = "Airline bot"
	warnOtherAgent(cmp, &out)
	require.Empty(t, out.String(), "the same agent")
}
