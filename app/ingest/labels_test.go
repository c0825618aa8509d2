package ingest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/db/transcript"
)

func TestLabelsFromSampleMetadata(t *testing.T) {
	t.Parallel()
	convs, sum := mustParse(t, readSample(t))

	require.Equal(t, ingest.Labels{Field: "metadata.success", Failed: 69, Succeeded: 31}, sum.Labels,
		"success wins over reward, which the sample also carries")
	failed := 0
	for _, c := range convs {
		if c.Label == transcript.LabelFailed {
			failed++
		}
	}
	require.Equal(t, 69, failed)
	require.Empty(t, sum.Warnings)
}

func TestLabelsAbsent(t *testing.T) {
	t.Parallel()
	convs, sum := mustParse(t, jsonlLines(okLine, `{"messages": [{"role": "user", "content": "x"}], "metadata": {"source": "a"}}`))

	require.Equal(t, ingest.Labels{Unlabelled: 2}, sum.Labels)
	for _, c := range convs {
		require.Equal(t, transcript.LabelNone, c.Label)
	}
}

// TestLabelsUnreadableAggregated gives many conversations an outcome field that cannot
// be read: the upload is accepted, those conversations are unlabelled, and there is one
// warning for the field, located at its first occurrence and counted.
func TestLabelsUnreadableAggregated(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 500 {
		meta := `{"csat": "meh"}`
		switch i % 5 {
		case 0:
			meta = `{"csat": 5}`
		case 1:
			meta = `{"csat": 1, "status": "open"}`
		}
		lines = append(lines, fmt.Sprintf(`{"id": "c%d", "messages": [{"role": "user", "content": "hi"}], "metadata": %s}`, i, meta))
	}

	_, sum := mustParse(t, jsonlLines(lines...))

	require.Equal(t, ingest.Labels{Field: "metadata.csat", Failed: 100, Succeeded: 100, Unlabelled: 300}, sum.Labels)
	require.Equal(t, []string{
		`line 2: metadata.status is not an outcome Checkup can read ("open") in 100 conversations; it is ignored there`,
		`line 3: metadata.csat is not an outcome Checkup can read ("meh") in 300 conversations; it is ignored there`,
	}, warnings(t, sum))
}

func TestLabelsMixedFields(t *testing.T) {
	t.Parallel()
	data := jsonlLines(
		`{"messages": [{"role": "user", "content": "a"}], "metadata": {"resolved": "yes"}}`,
		`{"messages": [{"role": "user", "content": "b"}], "metadata": {"Thumbs": "down"}}`,
		`{"messages": [{"role": "user", "content": "c"}], "metadata": {"thumbs": "up", "rating": 3}}`,
		`{"messages": [{"role": "user", "content": "d"}], "metadata": {"reward": 0.2, "thumbs": "up"}}`,
	)

	convs, sum := mustParse(t, data)

	var got []transcript.Label
	for _, c := range convs {
		got = append(got, c.Label)
	}
	require.Equal(t, []transcript.Label{"succeeded", "failed", "succeeded", "failed"}, got)
	require.Equal(t, ingest.Labels{Field: "metadata.Thumbs", Failed: 2, Succeeded: 2}, sum.Labels,
		"the field that labelled most conversations, as first written")
	require.Equal(t, []string{
		"outcome labels: read from metadata.Thumbs for 2 conversations, metadata.resolved for 1 conversation and metadata.reward for 1 conversation",
	}, warnings(t, sum))
}

// TestLabelsLabelledConversationsOnly checks that the counts cover the conversations
// handed to emit, not those refused for a problem.
func TestLabelsLabelledConversationsOnly(t *testing.T) {
	t.Parallel()
	data := jsonlLines(
		`{"messages": [{"role": "user", "content": "a"}], "metadata": {"success": true}}`,
		`{"messages": [{"role": "robot", "content": "b"}], "metadata": {"success": false}}`,
	)

	_, sum, err := parseBytes(t, data, zeroLimits())

	require.Error(t, err)
	require.Equal(t, 1, sum.Labels.Succeeded)
	require.Zero(t, sum.Labels.Failed)
	require.True(t, strings.Contains(refusal(t, err), "line 2"))
}
