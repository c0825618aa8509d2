package components_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/views/components"
)

func TestSegments(t *testing.T) {
	t.Parallel()
	seg := func(text string, mark bool) components.Segment { return components.Segment{Text: text, Mark: mark} }
	require.Equal(t, []components.Segment{seg("no quote here", false)}, components.Segments("no quote here", []string{"absent", ""}))
	require.Equal(t, []components.Segment{seg("I said ", false), seg("twice", true), seg(", ", false), seg("twice", true), seg("!", false)},
		components.Segments("I said twice, twice!", []string{"twice"}))
	require.Equal(t, []components.Segment{seg("订单", false), seg("取消失败了", true), seg("。", false)},
		components.Segments("订单取消失败了。", []string{"取消失败", "失败了"}), "overlapping quotes merge, CJK-safe")
}

func TestCount(t *testing.T) {
	t.Parallel()
	l := english(t)
	require.Equal(t, "0", l.Num(0))
	require.Equal(t, "999", l.Num(999))
	require.Equal(t, "1,000", l.Num(1000))
	require.Equal(t, "12,345,678", l.Num(int64(12345678)))
	require.Equal(t, "-1,234", l.Num(-1234))
	require.Equal(t, "1 conversation", l.N("count.conversations", 1))
	require.Equal(t, "2,000 conversations", l.N("count.conversations", 2000))
}
