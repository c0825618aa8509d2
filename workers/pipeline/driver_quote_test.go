package pipeline_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/drivers"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/pipeline"
)

// Every word driver of the labelled sample is stored with the turn of its first
// example conversation that writes it and a quote of that turn around it; the other
// kinds are stored without.
func TestWordDriversQuoteTheirFirstExample(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.uploadSample(t)
	require.EqualValues(t, "completed", b.runTask(t, id, offline.New(offline.Options{}), pipeline.Options{}).Status)
	found := b.report(t, id).Drivers
	words := 0
	for _, d := range found {
		if d.Kind != drivers.KindUserWords && d.Kind != drivers.KindAgentWords {
			require.Nil(t, d.ExampleTurn, d.Feature)
			continue
		}
		words++
		require.NotNil(t, d.ExampleTurn, d.Feature)
		conv, err := dbsqlc.New().GetTaskConversation(context.Background(), b.pool, dbsqlc.GetTaskConversationParams{
			TaskID: id, OwnerUserID: d.OwnerUserID, Seq: d.ExampleSeqs[0]})
		require.NoError(t, err)
		var msgs []transcript.Message
		require.NoError(t, json.Unmarshal(conv.Messages, &msgs))
		require.Contains(t, msgs[*d.ExampleTurn-1].Content, *d.ExampleQuote, "%s: the quote is of its turn, word for word", d.Feature)
		first, _, _ := strings.Cut(d.Feature, " ")
		require.Contains(t, strings.ToLower(*d.ExampleQuote), first, "%s: the quote holds the word", d.Feature)
	}
	require.Positive(t, words, "the sample has a word driver")
}
