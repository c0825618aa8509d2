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
	require.Equal(t, "0", components.Count(0))
	require.Equal(t, "999", components.Count(999))
	require.Equal(t, "1,000", components.Count(1000))
	require.Equal(t, "12,345,678", components.Count(int64(12345678)))
	require.Equal(t, "-1,234", components.Count(-1234))
	require.Equal(t, "1 conversation", components.Plural(1, "conversation", "conversations"))
	require.Equal(t, "2,000 conversations", components.Plural(2000, "conversation", "conversations"))
}
