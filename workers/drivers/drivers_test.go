package drivers

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/risk"
	"github.com/checkup-dev/checkup/workers/stats"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

func TestSearchFindsAnOverRepresentedFeature(t *testing.T) {
	t.Parallel()
	s := New()
	// 40 conversations, 20 failed; "cancel" in 12 failed and 2 successful ones, "hello"
	// everywhere, "rare" in two failed ones only.
	for seq := 1; seq <= 40; seq++ {
		failed := seq <= 20
		c := Conversation{Seq: seq, Failed: failed, Turns: 10 + seq%7, UserTurns: 3, Features: []Feature{{KindUserWords, "hello"}}}
		if (failed && seq <= 12) || seq == 21 || seq == 22 {
			c.Features = append(c.Features, Feature{KindTool, "cancel"}, Feature{KindTool, "cancel"})
		}
		if seq == 1 || seq == 2 {
			c.Features = append(c.Features, Feature{KindUserWords, "rare"})
		}
		s.Add(c)
	}
	got := s.Drivers()
	require.Len(t, got, 1)
	d := got[0]
	require.Equal(t, Feature{KindTool, "cancel"}, d.Feature)
	require.Equal(t, 12, d.Failed)
	require.Equal(t, 2, d.Succeeded)
	want := stats.FisherExact(stats.Table{FailedWith: 12, SucceededWith: 2, FailedWithout: 8, SucceededWithout: 18})
	require.InDelta(t, want, d.PValue, 1e-12)
	require.LessOrEqual(t, d.QValue, MaxQ)
	require.InDelta(t, 12.0/14, d.RateWith, 1e-12)
	require.InDelta(t, 8.0/26, d.RateWithout, 1e-12)
	require.InDelta(t, (12.0/14)/0.5, d.Lift, 1e-12)
	require.Equal(t, []int{1, 2, 3}, d.Examples)

	require.Nil(t, New().Drivers(), "nothing labelled, nothing found")
}

func TestDriversAreDeterministic(t *testing.T) {
	t.Parallel()
	convs := make([]Conversation, 0, 60)
	for seq := 1; seq <= 60; seq++ {
		var fs []Feature
		for k := 0; k < 5; k++ {
			if (seq*7+k*3)%5 < 2 {
				fs = append(fs, Feature{KindAgentWords, fmt.Sprintf("w%d", k)})
			}
		}
		convs = append(convs, Conversation{Seq: seq, Failed: seq%3 == 0, Turns: seq % 11, UserTurns: seq % 4, Features: fs})
	}
	a, b := New(), New()
	for _, c := range convs {
		a.Add(c)
	}
	for _, c := range convs {
		b.Add(c)
	}
	require.Equal(t, a.Drivers(), b.Drivers())

	// In any order: the pipeline adds conversations as their diagnoses are stored.
	for range 10 {
		shuffled := New()
		for _, i := range rand.Perm(len(convs)) {
			shuffled.Add(convs[i])
		}
		require.Equal(t, a.Drivers(), shuffled.Drivers())
	}
}

// Past maxFeatures the rarest features are dropped, however many there are, and the
// search stays bounded.
func TestSearchStaysBounded(t *testing.T) {
	t.Parallel()
	s := New()
	for seq := 1; seq <= 3000; seq++ {
		fs := make([]Feature, 200)
		for k := range fs {
			fs[k] = Feature{KindUserWords, fmt.Sprintf("w%d-%d", seq, k)} // every feature new
		}
		fs = append(fs, Feature{KindTool, "common"})
		s.Add(Conversation{Seq: seq, Failed: seq%2 == 0, Turns: 4, UserTurns: 2, Features: fs})
		require.LessOrEqual(t, len(s.counts), maxFeatures+len(fs))
	}
	require.Equal(t, 3000, s.counts[Feature{KindTool, "common"}].failed+s.counts[Feature{KindTool, "common"}].succeeded)
}

// TestDriversOnTheSample runs the search as the pipeline does on the labelled sets:
// offline findings and risk flags, labels from the ground truth.
// TestDriversOnTheSample finds drivers on both labelled sets, and every conversation of
// each in a second pass (Members), as many as the driver counts.
func TestDriversOnTheSample(t *testing.T) {
	t.Parallel()
	a := offline.New(offline.Options{})
	screen := risk.NewScreener()
	for _, set := range []string{transcripttest.Airline, transcripttest.Retail} {
		s := New()
		type input struct {
			conv     transcript.Conversation
			failed   bool
			errTurns []int
			cats     []string
		}
		var inputs []input
		var counted []Conversation
		for i, l := range transcripttest.LabelledSet(t, set) {
			d, err := a.Diagnose(context.Background(), l.Conversation)
			require.NoError(t, err)
			var cats []string
			for _, f := range d.Value.Findings {
				if !f.Expected {
					cats = append(cats, f.Category)
				}
			}
			var errTurns []int
			for _, f := range screen.Screen(l.Conversation) {
				if f.Kind == risk.KindToolError {
					errTurns = append(errTurns, f.Turn)
				}
			}
			c := Extract(i+1, !l.Success, l.Conversation, errTurns, cats)
			s.Add(c)
			counted = append(counted, c)
			inputs = append(inputs, input{l.Conversation, !l.Success, errTurns, cats})
		}
		found := s.Drivers()
		m := NewMembers(found)
		for i, in := range inputs {
			m.Add(m.Extract(i+1, in.failed, in.conv, in.errTurns, in.cats))
		}
		require.NotEmpty(t, found)
		for _, d := range m.Drivers() {
			require.Len(t, d.Conversations, d.Failed+d.Succeeded, "every conversation of %s %q, none twice", d.Kind, d.Name)
			require.IsIncreasing(t, d.Conversations)
			require.Subset(t, d.Conversations, d.Examples)
			require.GreaterOrEqual(t, d.Failed, MinFailed)
			require.LessOrEqual(t, d.QValue, MaxQ)
			require.Greater(t, d.RateWith, d.RateWithout)
			t.Logf("%s: %s %q failed %d succeeded %d lift %.2f q %.4f", set, d.Kind, d.Name, d.Failed, d.Succeeded, d.Lift, d.QValue)
		}

		// The feature log of the first pass finds the same conversations, whatever the
		// order the diagnoses were stored in.
		log, err := NewFeatureLog(t.TempDir())
		require.NoError(t, err)
		for _, c := range slices.Backward(counted) {
			log.Add(c)
		}
		logged := NewMembers(found)
		require.NoError(t, log.FillMembers(logged))
		require.NoError(t, log.Close())
		require.Equal(t, m.Drivers(), logged.Drivers(), "%s: the feature log finds what the second pass finds", set)
	}
}

// TestMembersReadWordsOnlyForWordDrivers: the second pass leaves a conversation's words
// out when no driver of words waits for its conversations, and reads them when one does.
func TestMembersReadWordsOnlyForWordDrivers(t *testing.T) {
	t.Parallel()
	conv := transcript.Conversation{Messages: []transcript.Message{
		{Role: transcript.RoleUser, Content: "Please cancel my order"},
		{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{{ID: "a", Name: "cancel_order"}}},
	}}
	tools := NewMembers([]Driver{{Feature: Feature{KindTool, "cancel_order"}}})
	c := tools.Extract(1, true, conv, nil, nil)
	require.Equal(t, []Feature{{KindTool, "cancel_order"}}, c.Features)
	words := NewMembers([]Driver{{Feature: Feature{KindUserWords, "cancel"}}})
	c = words.Extract(1, true, conv, nil, nil)
	require.Contains(t, c.Features, Feature{KindUserWords, "cancel"})
	words.Add(c)
	require.Equal(t, []int{1}, words.Drivers()[0].Conversations)
}

func TestExtract(t *testing.T) {
	t.Parallel()
	conv := transcript.Conversation{Messages: []transcript.Message{
		{Role: transcript.RoleSystem, Content: "policy"},
		{Role: transcript.RoleUser, Content: "Please cancel order W123, it is broken"},
		{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{{ID: "a", Name: "cancel_order"}}},
		{Role: transcript.RoleTool, ToolCallID: "a", Content: "Error: not found"},
		{Role: transcript.RoleAssistant, Content: "我无法取消订单"},
	}}
	c := Extract(7, true, conv, []int{4}, []string{"tool_error"})
	require.Equal(t, 4, c.Turns)
	require.Equal(t, 1, c.UserTurns)
	require.Contains(t, c.Features, Feature{KindTool, "cancel_order"})
	require.Contains(t, c.Features, Feature{KindToolError, "cancel_order"})
	require.Contains(t, c.Features, Feature{KindCategory, "tool_error"})
	require.Contains(t, c.Features, Feature{KindUserWords, "cancel"})
	require.Contains(t, c.Features, Feature{KindUserWords, "cancel order"})
	require.Contains(t, c.Features, Feature{KindAgentWords, "取消"})
	require.NotContains(t, c.Features, Feature{KindUserWords, "w123"}, "ids are not words")
}

// Extract's features own their names: a word that pointed into its message would keep
// the whole message in memory while the feature waits in the diagnosis checkpoints to
// be counted, and in the search's counts after. The messages are folded already, so
// folding returns them as they are and their words are slices of the messages
// themselves.
func TestExtractCopiesTheWordsItLists(t *testing.T) {
	t.Parallel()
	conv := transcript.Conversation{Messages: []transcript.Message{
		{Role: transcript.RoleUser, Content: "my suitcase never arrived at the gate"},
		{Role: transcript.RoleAssistant, Content: "i have filed a claim for the suitcase"},
	}}
	within := func(name, text string) bool {
		p, start := uintptr(unsafe.Pointer(unsafe.StringData(name))), uintptr(unsafe.Pointer(unsafe.StringData(text)))
		return p >= start && p < start+uintptr(len(text))
	}
	words := 0
	for _, f := range Extract(1, true, conv, nil, nil).Features {
		if f.Kind != KindUserWords && f.Kind != KindAgentWords {
			continue
		}
		words++
		for _, m := range conv.Messages {
			require.False(t, within(f.Name, m.Content), "%q points into %q", f.Name, m.Content)
		}
	}
	require.GreaterOrEqual(t, words, 5)
}

// wordFeature agrees with the plain statement of its rule on every term of the
// sample's texts and of random text, and on terms made to test it.
func TestWordFeatureAgreesWithItsRule(t *testing.T) {
	t.Parallel()
	rule := func(t string) bool {
		return !textmatch.Stopword(t) && !strings.ContainsFunc(t, func(r rune) bool { return unicode.IsDigit(r) || r == '_' }) &&
			utf8.RuneCountInString(t) >= 2
	}
	texts, _ := transcripttest.TextCorpus(t)
	terms := []string{"", "a", "é", "ab", "the", "٣x", "x٣", "w123", "a_b", "\xff", "\xff\xfe", "好", "人工", "don"}
	for _, text := range texts {
		terms = append(terms, textmatch.Terms(text)...)
	}
	for _, term := range terms {
		require.Equal(t, rule(term), wordFeature(term), "%q", term)
	}
}
