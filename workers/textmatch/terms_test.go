package textmatch

import (
	"testing"

	"github.com/stretchr/testify/require"
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
