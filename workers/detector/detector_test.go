package detector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
)

// TestTrainingIsDeterministic: the same conversations and labels give the same model,
// byte for byte, and the same out-of-fold scores.
func TestTrainingIsDeterministic(t *testing.T) {
	t.Parallel()
	examples := sampleExamples(t, transcripttest.Airline)
	train := func() ([]byte, []float64) {
		m, oof, err := Train(context.Background(), walkOf(examples))
		require.NoError(t, err)
		raw, err := json.Marshal(m)
		require.NoError(t, err)
		return raw, oof
	}
	a, oofA := train()
	b, oofB := train()
	require.Equal(t, string(a), string(b), "two trainings on the same data")
	require.Equal(t, oofA, oofB)
	m, err := Decode(a)
	require.NoError(t, err)
	again, err := json.Marshal(m)
	require.NoError(t, err)
	require.Equal(t, string(a), string(again), "a decoded model encodes to the same bytes")
	require.Equal(t, len(examples), m.Estimate.TrainedOn)
	e := m.Estimate
	require.GreaterOrEqual(t, e.SelectionOptimism, 0.0)
	require.InDelta(t, max(e.WithoutFindings, e.WithFindings)-e.SelectionOptimism, e.AUROC, 2e-4, "the better variant's figure less the choice's optimism: %+v", e)
	require.True(t, e.Low <= e.AUROC && e.AUROC <= e.High, "%+v", e)
}

// TestTooFewLabelsSaysWhatIsNeeded: below MinPerOutcome of either outcome there is no
// model, and the error says how many of each there are and are needed.
func TestTooFewLabelsSaysWhatIsNeeded(t *testing.T) {
	t.Parallel()
	var few []sampleExample
	failed := 0
	for _, e := range sampleExamples(t, transcripttest.Airline) {
		if e.Failed && failed < MinPerOutcome-3 {
			failed++
			few = append(few, e)
		} else if !e.Failed {
			few = append(few, e)
		}
	}
	_, _, err := Train(context.Background(), walkOf(few))
	var tooFew *TooFewLabels
	require.True(t, errors.As(err, &tooFew), "%v", err)
	require.Equal(t, MinPerOutcome-3, tooFew.Failed)
	require.Equal(t, 3, tooFew.NeedFailed())
	require.Zero(t, tooFew.NeedSucceeded())
	require.Contains(t, err.Error(), fmt.Sprintf("%d of each are needed", MinPerOutcome))
}

// TestNearDuplicatesShareAGroup: the same scenario retried in other words — the same
// account and booking, or the same request — lands in one group, and other scenarios
// in groups of their own, in English and in Chinese.
func TestNearDuplicatesShareAGroup(t *testing.T) {
	t.Parallel()
	conv := func(user string, args string) transcript.Conversation {
		c := transcript.Conversation{Messages: []transcript.Message{
			{Role: transcript.RoleUser, Content: user},
			{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{{Name: "lookup", Arguments: args}}},
		}}
		return c
	}
	var fps []Fingerprint
	add := func(c transcript.Conversation) int { fps = append(fps, TakeFingerprint(c)); return len(fps) - 1 }
	a1 := add(conv("Hi, I want to cancel booking XK42PQ for user ada_9081.", `{"booking":"XK42PQ","user":"ada_9081"}`))
	a2 := add(conv("Hello! Please cancel my reservation, the code is XK42PQ.", `{"booking":"XK42PQ","user":"ada_9081"}`))
	b1 := add(conv("My parcel never arrived and I would like a refund for the blue umbrella order.", `{}`))
	b2 := add(conv("The blue umbrella parcel never arrived, I would like a refund please.", `{}`))
	c1 := add(conv("我的订单一直没有发货，订单号是 TB77881234，想问一下什么时候能到？", `{"order":"TB77881234"}`))
	c2 := add(conv("请问订单 TB77881234 为什么还没发货？", `{"order":"TB77881234"}`))
	d := add(conv("Can you tell me your opening hours on public holidays in the summer?", `{}`))
	for range 20 { // strangers, so that what the pairs share is rare
		add(conv(fmt.Sprintf("Question number %d about something else entirely %d", len(fps), len(fps)*7), `{}`))
	}
	g := Groups(fps)
	require.Equal(t, g[a1], g[a2], "one booking retried")
	require.Equal(t, g[b1], g[b2], "one request retried in other words")
	require.Equal(t, g[c1], g[c2], "one order retried, in Chinese")
	require.NotEqual(t, g[a1], g[b1])
	require.NotEqual(t, g[b1], g[c1])
	require.NotEqual(t, g[d], g[a1])
	require.NotEqual(t, g[d], g[b1])
}

// TestFoldsKeepGroupsWhole: no group is split between two folds, and each fold gets
// failures when there are enough.
func TestFoldsKeepGroupsWhole(t *testing.T) {
	t.Parallel()
	examples := sampleExamples(t, transcripttest.Airline)
	fps := make([]Fingerprint, len(examples))
	failed := make([]bool, len(examples))
	for i, e := range examples {
		fps[i], failed[i] = e.Fingerprint, e.Failed
	}
	groups := Groups(fps)
	fold, k := folds(groups, failed)
	require.Equal(t, maxFolds, k)
	foldOf := map[int]int{}
	failures := make([]int, k)
	for i, g := range groups {
		if f, ok := foldOf[g]; ok {
			require.Equal(t, f, fold[i], "group %d is split", g)
		}
		foldOf[g] = fold[i]
		if failed[i] {
			failures[fold[i]]++
		}
	}
	for f, n := range failures {
		require.Positive(t, n, "fold %d has no failure", f)
	}
	// The sample's retries of one scenario carry its number: most scenarios are whole
	// in one group.
	byScenario := map[int]map[int]bool{}
	for i, e := range examples {
		if byScenario[e.scenario] == nil {
			byScenario[e.scenario] = map[int]bool{}
		}
		byScenario[e.scenario][groups[i]] = true
	}
	whole := 0
	for _, gs := range byScenario {
		if len(gs) == 1 {
			whole++
		}
	}
	require.GreaterOrEqual(t, whole, len(byScenario)*3/4, "scenarios kept whole")
}

// TestScoresFollowWhatWasLearned: a model trained on conversations whose failures say
// a word scores a new conversation with that word above one without it.
func TestScoresFollowWhatWasLearned(t *testing.T) {
	t.Parallel()
	var examples []Example
	for i := range 6 * MinPerOutcome {
		failed := i%2 == 0
		// Each conversation has a topic of its own, so none is a near-duplicate of another.
		topic := string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + "topic"
		text := fmt.Sprintf("hello there, a question about %s and %s for the account", topic, topic+"x")
		if failed {
			text += " this is useless and broken"
		}
		c := transcript.Conversation{Messages: []transcript.Message{{Role: transcript.RoleUser, Content: text}, {Role: transcript.RoleAssistant, Content: "ok"}}}
		examples = append(examples, Example{Doc: Extract(c, nil, nil, 0), Fingerprint: TakeFingerprint(c), Failed: failed})
	}
	m, _, err := Train(context.Background(), func(_ context.Context, yield func(Example) error) error {
		for _, e := range examples {
			if err := yield(e); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	doc := func(text string) Doc {
		return Extract(transcript.Conversation{Messages: []transcript.Message{{Role: transcript.RoleUser, Content: text}, {Role: transcript.RoleAssistant, Content: "ok"}}}, nil, nil, 0)
	}
	require.Greater(t, m.Score(doc("hello, this is useless and broken")), m.Score(doc("hello, a question about the account")))
	require.Greater(t, m.Estimate.AUROC, 0.9, "%+v", m.Estimate)
	top := m.TopFeatures(3)
	require.Len(t, top, 3)
	require.Positive(t, top[0].Weight, "the strongest feature speaks for failure: %v", top)
}

// TestChineseTermsAreCharactersAndPairs: CJK text counts by characters and pairs of
// adjacent characters, words elsewhere by words alone; ids are skipped.
func TestChineseTermsAreCharactersAndPairs(t *testing.T) {
	t.Parallel()
	d := Extract(transcript.Conversation{Messages: []transcript.Message{
		{Role: transcript.RoleUser, Content: "转人工 order A1234 please help, 工 now"},
	}}, nil, nil, 0)
	for _, term := range []string{"user:转", "user:人", "user:工", "user:转人", "user:人工", "user:order", "user:please", "user:help", "user:now"} {
		require.Contains(t, d.Terms, term)
	}
	require.NotContains(t, d.Terms, "user:a1234")
	for term := range d.Terms {
		require.NotContains(t, term, " ", "words are not paired")
	}
	require.Len(t, d.Terms, 9, "no pair across a space or a change of script")
	require.Equal(t, Counts{Messages: 1, UserTurns: 1, Characters: 34}, d.Counts)
}
