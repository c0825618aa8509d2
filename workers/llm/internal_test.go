package llm

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

// TestSchemaItemLimitsMatchNormalisation: the maxItems the model is told are the
// limits normalisation enforces.
func TestSchemaItemLimitsMatchNormalisation(t *testing.T) {
	t.Parallel()
	var d struct {
		Properties struct {
			Findings struct {
				MaxItems int
				Items    struct {
					Properties struct {
						Evidence struct{ MaxItems int }
					}
				}
			}
		}
	}
	s, err := loadSchema(schemaDiagnosis)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(s.raw, &d))
	require.Equal(t, analyzer.MaxFindings, d.Properties.Findings.MaxItems)
	require.Equal(t, analyzer.MaxEvidence, d.Properties.Findings.Items.Properties.Evidence.MaxItems)
}

func TestSchemaEnumsMatchVocabularies(t *testing.T) {
	t.Parallel()
	var d struct {
		Properties struct {
			Outcome  struct{ Enum []string }
			Findings struct {
				Items struct {
					Properties struct {
						Type     struct{ Enum []string }
						Category struct{ Enum []string }
					}
				}
			}
		}
	}
	var a struct {
		Properties struct {
			FixLocation struct{ Enum []string } `json:"fixLocation"`
		}
	}
	for name, v := range map[string]any{schemaDiagnosis: &d, schemaAction: &a} {
		s, err := loadSchema(name)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(s.raw, v))
	}
	require.Equal(t, analyzer.Outcomes(), d.Properties.Outcome.Enum)
	require.Equal(t, analyzer.Categories(), d.Properties.Findings.Items.Properties.Category.Enum)
	require.Equal(t, []string{string(analyzer.TypeRisk), string(analyzer.TypeAction)}, d.Properties.Findings.Items.Properties.Type.Enum)
	require.Equal(t, analyzer.FixLocations(), a.Properties.FixLocation.Enum)
}

// TestSchemasAreStrict checks the rules strict mode imposes: every object requires
// all its properties and forbids others, and no keyword outside strict mode's subset
// is used.
func TestSchemasAreStrict(t *testing.T) {
	t.Parallel()
	allowed := map[string]bool{
		"type": true, "description": true, "properties": true, "required": true,
		"additionalProperties": true, "items": true, "enum": true, "minimum": true, "maximum": true,
		"maxItems": true,
	}
	var walk func(path string, node map[string]any)
	walk = func(path string, node map[string]any) {
		for k := range node {
			require.True(t, allowed[k], "%s: keyword %q", path, k)
		}
		if node["type"] == "object" {
			require.Equal(t, false, node["additionalProperties"], path)
			props := node["properties"].(map[string]any)
			var required []string
			for _, r := range node["required"].([]any) {
				required = append(required, r.(string))
			}
			var names []string
			for name, p := range props {
				names = append(names, name)
				walk(path+"/"+name, p.(map[string]any))
			}
			require.ElementsMatch(t, names, required, path)
		}
		if items, ok := node["items"].(map[string]any); ok {
			walk(path+"/items", items)
		}
	}
	for _, name := range []string{schemaDiagnosis, schemaAction} {
		s, err := loadSchema(name)
		require.NoError(t, err)
		var root map[string]any
		require.NoError(t, json.Unmarshal(s.raw, &root))
		walk(name, root)
	}
}

func TestExtractJSON(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ in, want, err string }{
		"bare":          {in: `{"a":1}`, want: `{"a":1}`},
		"fenced":        {in: "```json\n{\"a\": {\"b\": 2}}\n```", want: `{"a": {"b": 2}}`},
		"prose":         {in: "Sure! Here it is:\n{\"a\":1}\nAnything else?", want: `{"a":1}`},
		"brace in text": {in: "Use {curly} braces: {\"a\":1}", want: `{"a":1}`},
		"cut off":       {in: `{"a":{"b":1},"c":[`, err: "cut off"},
		"none":          {in: "No JSON here.", err: "no JSON object"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := extractJSON(tc.in)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
		})
	}
}

func TestParseAnswerReportsProblems(t *testing.T) {
	t.Parallel()
	s, err := loadSchema(schemaDiagnosis)
	require.NoError(t, err)
	norm := func(d analyzer.Diagnosis) (analyzer.Diagnosis, analyzer.Adjustments) { return normalizeDiagnosis(d, 5) }

	_, _, problems := parseAnswer(`{"outcome":"resolved","summary":"s","findings":[{"type":"ACTION","category":"other","title":"t","description":"d","severity":"high","confidence":1,"evidence":[],"priorityScore":1,"expected":false,"policy":""}],"failureScore":0,"failedTurn":0}`, s, norm)
	require.Equal(t, []string{"at /findings/0/severity: got string, want integer"}, problems)

	_, _, problems = parseAnswer(`{"outcome":"fine","summary":"s","findings":[],"failureScore":0,"failedTurn":0}`, s, norm)
	require.Len(t, problems, 1)
	require.Contains(t, problems[0], "at /outcome: value must be one of")

	d, _, problems := parseAnswer(`{"outcome":"Resolved","summary":"s","findings":[],"failureScore":0,"failedTurn":0,"extra":true}`, s, norm)
	require.Nil(t, problems, "unknown properties are dropped, not repaired")
	require.Equal(t, "resolved", d.Outcome)
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":     0,
		"1":    time.Second,
		" 7 ":  7 * time.Second,
		"-3":   0,
		"3600": maxRetryAfter,
		"soon": 0,
		now.Add(30 * time.Second).Format(http.TimeFormat): 30 * time.Second,
		now.Add(-time.Hour).Format(http.TimeFormat):       0,
	} {
		h := http.Header{}
		if in != "" {
			h.Set("Retry-After", in)
		}
		require.Equal(t, want, retryAfter(h, now), "Retry-After %q", in)
	}
}

func TestBackoffIsBoundedFullJitter(t *testing.T) {
	t.Parallel()
	a := &Analyzer{cfg: Config{BackoffBase: 100 * time.Millisecond, BackoffMax: time.Second}}
	for try, ceiling := range map[int]time.Duration{
		1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second, 60: time.Second,
	} {
		for range 200 {
			d := a.backoff(try)
			require.GreaterOrEqual(t, d, time.Duration(0))
			require.LessOrEqual(t, d, ceiling, "try %d", try)
		}
	}
}

func TestNewValidatesConfig(t *testing.T) {
	t.Parallel()
	_, err := New(Config{})
	require.ErrorContains(t, err, "a model is required")
	_, err = New(Config{Model: "m", JSONMode: "yaml"})
	require.ErrorContains(t, err, `JSON mode "yaml"`)
	_, err = New(Config{Model: "m", BaseURL: "localhost:8000"})
	require.ErrorContains(t, err, "not an http(s) URL")
	_, err = New(Config{Model: "m", MaxTries: -1})
	require.ErrorContains(t, err, "cannot be negative")
	_, err = New(Config{Model: "m", BackoffBase: time.Minute, BackoffMax: time.Second})
	require.ErrorContains(t, err, "exceeds backoff max")

	a, err := New(Config{Model: "m"})
	require.NoError(t, err)
	require.Equal(t, JSONModeSchema, a.cfg.JSONMode)
	require.Equal(t, 60*time.Second, a.cfg.Timeout)
	require.Equal(t, 4, a.cfg.MaxTries)
	require.NotNil(t, a.cfg.Logger)
}
