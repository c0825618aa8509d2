package ingest_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/app/ingest/ingesttest"
	"github.com/checkup-dev/checkup/db/transcript"
)

// TestSameConversationsInEveryFormat converts the sample into every format a team's
// data may be in and parses each back: the normalised conversations (ids, roles,
// content, tool calls and their ids, tool results and the calls they answer, metadata
// and the outcome labels read from it) are the OpenAI JSONL parse's. The pipeline is
// deterministic, so identical conversations give identical reports.
//
// What a format cannot carry is normalised in the expectation, never dropped: formats
// that hold arguments as JSON objects give them back compact.
func TestSameConversationsInEveryFormat(t *testing.T) {
	t.Parallel()
	orig, origSum := mustParse(t, readSample(t))
	require.Equal(t, ingest.Labels{Field: "metadata.success", Failed: 69, Succeeded: 31}, origSum.Labels)
	compact := ingesttest.CompactArgs(orig)
	cases := []struct {
		name, format string
		data         []byte
		want         []transcript.Conversation
	}{
		{"anthropic jsonl", "anthropic-jsonl", ingesttest.Anthropic(t, orig, true), compact},
		{"anthropic json", "anthropic-json", ingesttest.Anthropic(t, orig, false), compact},
		{"otlp gen_ai messages as text, document", "otlp-json", ingesttest.OTLP(t, orig, ingesttest.GenAIText, false, 0), compact},
		{"otlp gen_ai messages structured, lines", "otlp-jsonl", ingesttest.OTLP(t, orig, ingesttest.GenAIStructured, true, 50), compact},
		{"otlp openinference", "otlp-jsonl", ingesttest.OTLP(t, orig, ingesttest.OpenInference, true, 200), orig},
		{"otlp openllmetry", "otlp-jsonl", ingesttest.OTLP(t, orig, ingesttest.OpenLLMetry, true, 7), orig},
		{"otlp gen_ai events", "otlp-jsonl", ingesttest.OTLP(t, orig, ingesttest.GenAIEvents, true, 100), orig},
		{"langfuse trace downloads", "langfuse-jsonl", ingesttest.LangfuseTraces(t, orig), orig},
		{"langfuse blob export", "langfuse-jsonl", ingesttest.LangfuseBlob(t, orig), orig},
		{"langsmith runs", "langsmith-jsonl", ingesttest.LangSmith(t, orig), compact},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			convs, sum := mustParse(t, tc.data)

			require.Equal(t, tc.format, sum.Format)
			_, listed := transcript.FormatNamed(sum.Format)
			require.True(t, listed, "%s is one of transcript.Formats", sum.Format)
			require.Equal(t, origSum.Labels, sum.Labels)
			requireSameConversations(t, tc.want, convs)
			require.Empty(t, sum.Warnings)
		})
	}
}

// TestTraceFormatsSpill parses interleaved spans with an in-memory budget far smaller
// than the file: the calls wait in a temporary file and the conversations come out the
// same.
func TestTraceFormatsSpill(t *testing.T) {
	t.Parallel()
	orig, _ := mustParse(t, readSample(t))
	for _, data := range [][]byte{ingesttest.OTLP(t, orig, ingesttest.GenAIStructured, true, 50), ingesttest.LangSmith(t, orig)} {
		inMemory, _ := mustParse(t, data)
		spilled, sum, err := parseBytes(t, data, ingest.Limits{SpillBytes: 256 << 10, TempDir: t.TempDir()})
		require.NoError(t, err)
		require.Positive(t, sum.SpilledBytes)
		require.Equal(t, canonical(t, inMemory), canonical(t, spilled))
	}
}

// requireSameConversations compares conversations and, when they differ, says where in
// a few lines instead of printing them whole.
func requireSameConversations(t *testing.T, want, got []transcript.Conversation) {
	t.Helper()
	ids := func(cs []transcript.Conversation) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = c.ID
		}
		return out
	}
	require.Equal(t, ids(want), ids(got))
	short := func(m transcript.Message) string {
		s := fmt.Sprintf("%+v", m)
		if len(s) > 300 {
			s = s[:300] + "..."
		}
		return s
	}
	for i := range want {
		w, g := want[i], got[i]
		for j := range min(len(w.Messages), len(g.Messages)) {
			require.Equal(t, short(w.Messages[j]), short(g.Messages[j]), "conversation %s, message %d", w.ID, j+1)
			require.Equal(t, w.Messages[j], g.Messages[j], "conversation %s, message %d", w.ID, j+1)
		}
		require.Equal(t, len(w.Messages), len(g.Messages), "conversation %s: messages", w.ID)
		require.JSONEq(t, orNull(w.Metadata), orNull(g.Metadata), "conversation %s: metadata", w.ID)
		require.Equal(t, w.Label, g.Label, "conversation %s: label", w.ID)
	}
}

func orNull(raw []byte) string {
	if len(raw) == 0 {
		return "null"
	}
	return string(raw)
}
