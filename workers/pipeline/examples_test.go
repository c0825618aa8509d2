package pipeline

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

func TestDistinctQuotesFirst(t *testing.T) {
	t.Parallel()
	ex := func(seq int, quote string) analyzer.Example { return analyzer.Example{Seq: seq, Quote: quote} }
	got := distinctQuotesFirst([]analyzer.Example{ex(1, "a"), ex(2, "a"), ex(3, "a"), ex(4, "b"), ex(5, "c"), ex(6, "b")})
	require.Equal(t, []analyzer.Example{ex(1, "a"), ex(4, "b"), ex(5, "c"), ex(2, "a"), ex(3, "a"), ex(6, "b")}, got)
	require.Equal(t, []analyzer.Example{}, distinctQuotesFirst(nil))
}
