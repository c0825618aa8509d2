package ingest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJudge checks every outcome field with every value form it accepts, and values it
// must refuse, through the pure core that reads one field.
func TestJudge(t *testing.T) {
	t.Parallel()
	const (
		F = verdictFailed
		S = verdictSucceeded
		N = verdictNeutral
		U = verdictUnreadable
	)
	cases := []struct {
		key  string
		json string
		want verdict
	}{
		// A flag: bool, yes/no, true/false, 1/0, as JSON values or text.
		{"success", `true`, S}, {"success", `false`, F},
		{"success", `"yes"`, S}, {"success", `"No"`, F}, {"success", `" TRUE "`, S}, {"success", `"false"`, F},
		{"success", `1`, S}, {"success", `0`, F}, {"success", `"1"`, S}, {"success", `"0"`, F},
		{"resolved", `true`, S}, {"resolved", `"no"`, F}, {"resolved", `"resolved"`, S},
		{"task_success", `1`, S}, {"task_success", `false`, F},
		{"success", `2`, U}, {"success", `"maybe"`, U}, {"success", `0.5`, U}, {"success", `{"a": 1}`, U},
		// A word.
		{"outcome", `"succeeded"`, S}, {"outcome", `"success"`, S}, {"status", `"Resolved"`, S},
		{"label", `"solved"`, S}, {"resolution", `"pass"`, S}, {"outcome", `"completed"`, S},
		{"outcome", `"failed"`, F}, {"status", `"failure"`, F}, {"label", `"unresolved"`, F},
		{"resolution", `"escalated"`, F}, {"outcome", `"abandoned"`, F}, {"status", `"FAIL"`, F},
		{"status", `"open"`, U}, {"outcome", `true`, U}, {"label", `1`, U},
		// A graded number in 0..1.
		{"reward", `1.0`, S}, {"reward", `0.5`, S}, {"reward", `0.49`, F}, {"reward", `0`, F},
		{"score", `"0.8"`, S}, {"score", `"0.2"`, F},
		{"reward", `1.5`, U}, {"score", `-0.1`, U}, {"score", `"high"`, U}, {"reward", `true`, U},
		// A 1–5 rating, or words.
		{"csat", `1`, F}, {"csat", `2`, F}, {"csat", `3`, N}, {"csat", `4`, S}, {"csat", `5`, S},
		{"rating", `"4"`, S}, {"satisfaction", `"2"`, F}, {"rating", `2.5`, N},
		{"satisfaction", `"satisfied"`, S}, {"satisfaction", `"Very satisfied"`, S},
		{"satisfaction", `"neutral"`, N}, {"satisfaction", `"dissatisfied"`, F},
		{"csat", `"满意"`, S}, {"csat", `"非常满意"`, S}, {"csat", `"不满意"`, F}, {"csat", `"一般"`, N},
		{"csat", `0`, U}, {"rating", `6`, U}, {"csat", `"ok"`, U}, {"csat", `true`, U},
		// A reaction.
		{"thumbs", `"up"`, S}, {"thumbs", `"down"`, F}, {"feedback", `1`, S}, {"feedback", `-1`, F},
		{"thumbs", `"👍"`, S}, {"thumbs", `"👎"`, F}, {"feedback", `"+1"`, S}, {"feedback", `"-1"`, F},
		{"thumbs", `"thumbs_up"`, S}, {"feedback", `"negative"`, F}, {"thumbs", `true`, S},
		{"feedback", `0`, U}, {"feedback", `"great job"`, U},
	}
	for _, tc := range cases {
		_, group, ok := labelRank(tc.key)
		require.True(t, ok, tc.key)
		v, present := jsonLabelValue(json.RawMessage(tc.json))
		require.True(t, present)
		require.Equal(t, tc.want, judge(group, v), "%s: %s", tc.key, tc.json)
	}
}

func TestJudgeAbsentValues(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{`null`, `""`, `"  "`} {
		_, present := jsonLabelValue(json.RawMessage(raw))
		require.False(t, present, raw)
	}
	_, present := textCandidate("column csat", "csat", " ")
	require.False(t, present)
}

// TestChooseLabelPrecedence checks the order in which fields are tried when several are
// present: flags, then words, then graded numbers, then ratings, then reactions; an
// unreadable or neutral value passes to the next field.
func TestChooseLabelPrecedence(t *testing.T) {
	t.Parallel()
	cand := func(key, raw string) labelCandidate {
		v, _ := jsonLabelValue(json.RawMessage(raw))
		return labelCandidate{field: "metadata." + key, key: key, value: v}
	}
	cases := []struct {
		name       string
		cands      []labelCandidate
		label      string
		field      string
		unreadable []string
	}{
		{"flag before graded, whatever the file order", []labelCandidate{cand("reward", "1.0"), cand("success", "false")}, "failed", "metadata.success", nil},
		{"word before rating", []labelCandidate{cand("csat", "5"), cand("outcome", `"escalated"`)}, "failed", "metadata.outcome", nil},
		{"graded before reaction", []labelCandidate{cand("thumbs", `"down"`), cand("score", "0.9")}, "succeeded", "metadata.score", nil},
		{"success before resolved within the group", []labelCandidate{cand("resolved", "true"), cand("success", "false")}, "failed", "metadata.success", nil},
		{"unreadable passes to the next", []labelCandidate{cand("success", `"maybe"`), cand("csat", "1")}, "failed", "metadata.csat", []string{"metadata.success"}},
		{"neutral passes to the next", []labelCandidate{cand("csat", "3"), cand("thumbs", `"up"`)}, "succeeded", "metadata.thumbs", nil},
		{"nothing readable", []labelCandidate{cand("status", `"open"`), cand("csat", "3")}, "", "", []string{"metadata.status"}},
		{"case of the key does not matter", []labelCandidate{cand("Success", "true")}, "succeeded", "metadata.Success", nil},
	}
	for _, tc := range cases {
		ch := chooseLabel(tc.cands)
		require.Equal(t, tc.label, string(ch.label), tc.name)
		require.Equal(t, tc.field, ch.field, tc.name)
		var bad []string
		for _, u := range ch.unreadable {
			bad = append(bad, u.field)
		}
		require.Equal(t, tc.unreadable, bad, tc.name)
	}
}

func TestMetadataCandidates(t *testing.T) {
	t.Parallel()
	raw := json.RawMessage(`{"source": "x", "SUCCESS": true, "nested": {"success": false}, "csat": null, "reward": 0.0, "thumbs": ""}`)

	got := metadataCandidates("metadata.", raw)

	require.Len(t, got, 2, "top-level outcome keys only, null and empty values absent")
	require.Equal(t, "metadata.SUCCESS", got[0].field)
	require.Equal(t, "metadata.reward", got[1].field)
	require.Nil(t, metadataCandidates("metadata.", json.RawMessage(`[1, 2]`)))
	require.Nil(t, metadataCandidates("metadata.", nil))
}
