package textmatch

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
)

func TestTerms(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"the", "tool", "call", "failed", "don", "retry", "42"}, Terms("The tool call's FAILED — don't retry 42!"))
	require.Equal(t, []string{"用户", "户要", "要求", "求转", "转人", "人工"}, Terms("用户要求转人工"))
	require.Equal(t, []string{"我", "ipad", "没有", "有越", "越狱"}, Terms("我ipad没有越狱"))
	require.Equal(t, []string{"ｈｉ"[:0] + "hi"}, Terms("ｈｉ"), "full-width letters fold")
	require.Empty(t, Terms(" ,.!? "))
}

func TestStem(t *testing.T) {
	t.Parallel()
	for _, group := range [][]string{{"modified", "modifies", "modify"}, {"bags", "bag"}, {"cancelled", "cancel"}, {"refunds", "refund"}} {
		for _, w := range group[1:] {
			require.Equal(t, Stem(group[0]), Stem(w), "%s ~ %s", group[0], w)
		}
	}
	require.Equal(t, "人工", Stem("人工"))
	require.True(t, Stopword("the"))
	require.False(t, Stopword("refund"))
}

// A Stemmer gives Stem's stems, from memory or not, and its memory stays bounded: on
// the sample's words, each stemmed twice, and on more distinct words than it keeps.
func TestStemmerStemsAsStem(t *testing.T) {
	t.Parallel()
	texts, _ := transcripttest.TextCorpus(t)
	var s Stemmer
	for _, text := range texts {
		for w := range EachTerm(text) {
			require.Equal(t, Stem(w), s.Stem(w), "%q", w)
			require.Equal(t, Stem(w), s.Stem(w), "%q from memory", w)
		}
	}
	for i := range maxStems + 100 {
		w := "refund" + strings.Map(func(r rune) rune { return 'a' + r - '0' }, strconv.Itoa(i)) + "ing"
		require.Equal(t, Stem(w), s.Stem(w), "%q", w)
	}
	require.LessOrEqual(t, len(s.stems), maxStems)
}
