package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// withCopy is content with its first line again under another id: the quality checks
// set the copy aside as a duplicate, so it cannot be labelled.
func withCopy(t *testing.T, content []byte, id string) []byte {
	t.Helper()
	first, _, _ := bytes.Cut(content, []byte("\n"))
	var line map[string]any
	require.NoError(t, json.Unmarshal(first, &line))
	line["conversation_id"] = id
	copied, err := json.Marshal(line)
	require.NoError(t, err)
	return append(append(append([]byte{}, content...), copied...), '\n')
}

// TestAPILabelsAreStoredAllOrNothing labels conversations of an unlabelled upload
// through the API: the answer says each one's labels now and what the agent has, and
// the list gives them back; null takes a label back. Every mistake a script can make is
// refused with a sentence that names it, and leaves every label as it was.
func TestAPILabelsAreStoredAllOrNothing(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	id := b.upload(t, b.alice, "Airline, unlabelled", "Airline agent", withCopy(t, unlabelledAirline(t), "airline-copy"))

	got := b.label(t, b.alice, id,
		labelIn{"airline-task00-trial0", outcome("failed")}, labelIn{"airline-task01-trial0", outcome("succeeded")})
	require.Len(t, got.Labels, 2)
	first := got.Labels[0]
	require.Equal(t, "airline-task00-trial0", first.ConversationID)
	require.Equal(t, "failed", *first.Label)
	require.Equal(t, "reviewer", *first.LabelSource)
	require.Equal(t, "failed", *first.ReviewedLabel)
	require.NotNil(t, first.ReviewedAt)
	require.Equal(t, "succeeded", *got.Labels[1].Label)
	require.NotNil(t, got.Agent)
	require.Equal(t, "Airline agent", got.Agent.Name)
	require.Equal(t, 1, got.Agent.Failed)
	require.Equal(t, 1, got.Agent.Succeeded)
	require.Equal(t, 10, got.Agent.MinPerOutcome)
	require.False(t, got.Agent.HasDetector)
	require.False(t, got.Agent.Learning, "two labels are too few to learn from")

	_, list, _ := b.conversations(t, b.alice, id, "limit=500")
	labelled := map[string]string{}
	for _, c := range list.Conversations {
		if c.Label != nil {
			labelled[c.ID] = *c.Label + "/" + *c.LabelSource
		}
	}
	require.Equal(t, map[string]string{"airline-task00-trial0": "failed/reviewer", "airline-task01-trial0": "succeeded/reviewer"}, labelled)
	require.Nil(t, list.Next, "100 kept conversations fit in one page of 500")
	require.Len(t, list.Conversations, 100, "the duplicate is not kept")

	got = b.label(t, b.alice, id, labelIn{"airline-task01-trial0", nil})
	require.Nil(t, got.Labels[0].Label, "null takes the label back")
	require.Nil(t, got.Labels[0].ReviewedLabel)
	require.Equal(t, 0, got.Agent.Succeeded)
	reviewed := b.reviewed(t, id)
	require.Equal(t, 2, reviewed, "both were labelled once")

	many := make([]string, 501)
	for i := range many {
		many[i] = fmt.Sprintf(`{"conversation_id": "c%d", "outcome": "failed"}`, i)
	}
	for name, c := range map[string]struct {
		body   string
		status int
		says   string
	}{
		"unknown id":      {`{"labels": [{"conversation_id": "airline-task02-trial0", "outcome": "failed"}, {"conversation_id": "no-such-id", "outcome": "failed"}]}`, http.StatusUnprocessableEntity, `This diagnosis has no conversation "no-such-id". Nothing was stored.`},
		"bad outcome":     {`{"labels": [{"conversation_id": "airline-task02-trial0", "outcome": "failed"}, {"conversation_id": "airline-task03-trial0", "outcome": "fail"}]}`, http.StatusUnprocessableEntity, `labels[1] ("airline-task03-trial0"): the outcome is "failed", "succeeded" or null (to take your label back), not "fail".`},
		"missing outcome": {`{"labels": [{"conversation_id": "airline-task02-trial0"}]}`, http.StatusUnprocessableEntity, `not missing`},
		"a number":        {`{"labels": [{"conversation_id": "airline-task02-trial0", "outcome": 1}]}`, http.StatusUnprocessableEntity, `not 1.`},
		"no id":           {`{"labels": [{"conversation_id": " ", "outcome": "failed"}]}`, http.StatusUnprocessableEntity, `labels[0] has no conversation_id`},
		"not kept":        {`{"labels": [{"conversation_id": "airline-task02-trial0", "outcome": "failed"}, {"conversation_id": "airline-copy", "outcome": "failed"}]}`, http.StatusUnprocessableEntity, `The quality checks set aside "airline-copy" (not analyzed, so not labeled). Nothing was stored.`},
		"named twice":     {`{"labels": [{"conversation_id": "airline-task02-trial0", "outcome": "failed"}, {"conversation_id": "airline-task02-trial0", "outcome": "succeeded"}]}`, http.StatusUnprocessableEntity, `"airline-task02-trial0" is named more than once. Nothing was stored.`},
		"too many":        {`{"labels": [` + strings.Join(many, ",") + `]}`, http.StatusUnprocessableEntity, "This request gives 501 labels; give at most 500 at once"},
		"none":            {`{"labels": []}`, http.StatusUnprocessableEntity, "labels is empty"},
		"not JSON":        {`labels=failed`, http.StatusBadRequest, "The body is not the JSON this route reads"},
		"another field":   {`{"labels": [{"conversation_id": "airline-task02-trial0", "label": "failed", "outcome": "failed"}]}`, http.StatusBadRequest, "The body is not the JSON this route reads"},
		"two bodies":      {`{"labels": []} {"labels": []}`, http.StatusBadRequest, "The body is not the JSON this route reads"},
	} {
		status, body := b.postLabels(t, b.alice, id, c.body)
		require.Equal(t, c.status, status, "%s: %s", name, body)
		e := decode[apiErr](t, body)
		require.Contains(t, e.Error, c.says, name)
		require.Equal(t, "labels", e.Field, name)
	}
	require.Equal(t, reviewed, b.reviewed(t, id), "nothing of a refused change was stored")

	for name, query := range map[string]string{"sort": "sort=newest", "limit": "limit=501", "after": "sort=to_label&after=x"} {
		status, _, body := b.conversations(t, b.alice, id, query)
		require.Equal(t, http.StatusBadRequest, status, "%s: %s", name, body)
		require.Equal(t, name, decode[apiErr](t, body).Field)
	}

	// Another owner's task, and one that does not exist, are a 404 on both routes, and
	// labelling them changes nothing.
	for _, task := range []uuid.UUID{id, uuid.New()} {
		status, body := b.postLabels(t, b.bob, task, `{"labels": [{"conversation_id": "airline-task02-trial0", "outcome": "failed"}]}`)
		require.Equal(t, http.StatusNotFound, status, "%s", body)
		status, _, body = b.conversations(t, b.bob, task, "sort=to_label")
		require.Equal(t, http.StatusNotFound, status, "%s", body)
	}
	require.Equal(t, reviewed, b.reviewed(t, id))
}

// TestAPIListsWhatIsMostUsefulToLabel pages through the list most useful to label: it
// holds every diagnosed conversation without a label once, those labelled since are
// left out, and its order stays the same as labels arrive.
func TestAPIListsWhatIsMostUsefulToLabel(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	id := b.upload(t, b.alice, "Airline, unlabelled", "", unlabelledAirline(t))

	var order []string
	seen := map[string]bool{}
	next := "sort=to_label&limit=30"
	for next != "" {
		status, page, body := b.conversations(t, b.alice, id, next)
		require.Equal(t, http.StatusOK, status, "%s", body)
		for _, c := range page.Conversations {
			require.False(t, seen[c.ID], "%s listed twice", c.ID)
			require.Nil(t, c.Label)
			require.NotNil(t, c.FailureScore, "diagnosed")
			seen[c.ID] = true
			order = append(order, c.ID)
		}
		next = ""
		if page.Next != nil {
			_, query, _ := strings.Cut(*page.Next, "?")
			next = query
		}
	}
	require.Len(t, order, 100)

	b.label(t, b.alice, id, labelIn{order[0], outcome("failed")}, labelIn{order[2], outcome("succeeded")})
	_, page, _ := b.conversations(t, b.alice, id, "sort=to_label&limit=3")
	var ids []string
	for _, c := range page.Conversations {
		ids = append(ids, c.ID)
	}
	require.Equal(t, []string{order[1], order[3], order[4]}, ids, "the labelled leave, the others keep their order")
	require.NotNil(t, page.Next)
}
