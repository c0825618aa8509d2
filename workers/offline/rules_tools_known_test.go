package offline

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// TestRejectionTheAgentCouldHaveSeenComing: a call the tool turned down for a value an
// earlier result had already shown unavailable says where the agent read it, and
// quotes that record — whether the value is the record's key or one of its fields. A
// value shown available, beside another that is not, is no such case. In Chinese too.
func TestRejectionTheAgentCouldHaveSeenComing(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	rejected := func(opening, catalogue, item, reply string) analyzer.Diagnosis {
		return diagnose(t, a, sys(testPolicy), u(opening),
			toolCall("g1", "get_product_details", `{"product_id": "p1"}`), res("g1", catalogue),
			toolCall("c1", "modify_pending_order_items", `{"order_id": "#W1", "new_item_ids": ["`+item+`"]}`),
			res("c1", "Error: new item "+item+" not found or available"), as(reply))
	}
	keyed := `{"name": "Bottle", "variants": {"1111": {"item_id": "1111", "options": {"color": "black"}, "available": false}, "2222": {"item_id": "2222", "available": true}}}`
	d := rejected("Change the bottle in order #W1 to black", keyed, "1111", "Sorry, that bottle is unavailable.")
	f := only(d, "tool_error")
	require.Len(t, f, 1)
	require.Contains(t, f[0].Description, "At turn 4 the agent had already read that 1111 was not available, and still called modify_pending_order_items with it at turn 5.")
	require.Contains(t, f[0].Evidence, analyzer.Evidence{Turn: 4, Quote: `"1111": {"item_id": "1111", "options": {"color": "black"}, "available": false`})

	fielded := `[{"item_id": "3333", "status": "out of stock", "price": 10}]`
	f = only(rejected("Swap it for item 3333", fielded, "3333", "Sorry, that one is unavailable."), "tool_error")
	require.Contains(t, f[0].Description, "had already read that 3333 was not available")

	sibling := `{"variants": {"2222": {"item_id": "2222", "available": true}, "1111": {"item_id": "1111", "available": false}}}`
	f = only(rejected("Swap it for item 2222", sibling, "2222", "Sorry, that one is unavailable."), "tool_error")
	require.NotContains(t, f[0].Description, "already read", "2222 was shown available; the mark is its neighbour's")

	zh := rejected("把订单#W1里的水杯换成黑色", keyed, "1111", "抱歉，这款水杯暂时无货。")
	f = only(zh, "tool_error")
	require.Contains(t, localetest.Chinese(t).Text(f[0].Words.Description), "智能体在第 4 轮已经读到 1111 不可用，却仍在第 5 轮用它调用了 modify_pending_order_items。")
}

// TestFailedWritesSayWhatBecameOfThem: a failed write no later call made good is
// counted in calls, and a write the conversation ends on says so rather than that the
// agent kept quiet — in either language.
func TestFailedWritesSayWhatBecameOfThem(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	failing := func(after ...transcript.Message) analyzer.Finding {
		d := diagnose(t, a, append([]transcript.Message{sys(testPolicy), u("Cancel order #W1"), as("Cancel order #W1. Shall I go ahead?"), u("Yes"),
			toolCall("c1", "cancel_pending_order", `{"order_id": "#W1"}`), res("c1", "Error: non-pending order cannot be cancelled")}, after...)...)
		f := only(d, "tool_error")
		require.Len(t, f, 1)
		return f[0]
	}
	told := failing(as("Unfortunately the order has shipped, so it cannot be cancelled."), u("OK, thanks."))
	require.Contains(t, told.Description, "It was not tried again. The agent told the user the change failed.")

	ends := failing()
	require.Contains(t, ends.Description, "The change cancel_pending_order tried at turn 5 failed and was never made; the conversation ends before the agent says anything of it.")
	require.Contains(t, localetest.Chinese(t).Text(ends.Words.Description), "第 5 轮 cancel_pending_order 尝试的修改失败了，始终没有完成；对话在智能体提及此事之前就结束了。")
	require.Contains(t, localetest.Chinese(t).Text(told.Words.Description), "之后没有再试。")

	twice := failing(as("Sorry, that failed. Let me try again."), toolCall("c2", "cancel_pending_order", `{"order_id": "#W1"}`),
		res("c2", "Error: non-pending order cannot be cancelled"), as("Unfortunately it cannot be cancelled."))
	require.Contains(t, twice.Description, "2 of 2 failed calls never went through on a later try.")
}
