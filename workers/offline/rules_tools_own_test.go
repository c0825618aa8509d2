package offline

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// TestARejectionOfARecordTheAgentChangedSaysSo: when the tool turns a call down for a
// record the agent had itself changed earlier in the conversation, the finding says
// which change and the status it left, in either language, and quotes that status; a
// rejection of a record no earlier write touched says nothing of the kind.
func TestARejectionOfARecordTheAgentChangedSaysSo(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	for _, words := range [][4]string{
		{"Exchange the lamp of #W1, then return the mouse.", "Exchange the lamp for the blue one, then return the mouse. Proceed?", "Yes", "The return failed: the order is no longer delivered."},
		{"把 #W1 的台灯换货，然后退掉鼠标。", "把台灯换成蓝色的，然后退掉鼠标。要继续吗？", "是的", "退货失败了：这个订单已经不是已送达状态。"},
	} {
		// The agent exchanges an item of order `changed`, then tries to return one of #W1.
		run := func(changed string) analyzer.Diagnosis {
			return diagnose(t, a, sys(shopPolicy), u(words[0]), as(words[1]), u(words[2]),
				toolCall("c1", "exchange_delivered_order_items", `{"order_id":"`+changed+`","item_ids":["1"],"new_item_ids":["2"],"payment_method_id":"paypal_1"}`),
				res("c1", `{"order_id": "`+changed+`", "status": "exchange requested"}`),
				toolCall("c2", "return_delivered_order_items", `{"order_id":"#W1","item_ids":["3"],"payment_method_id":"paypal_1"}`),
				res("c2", "Error: non-delivered order cannot be returned"),
				as(words[3]), u("OK"))
		}
		d := run("#W1")
		f := only(d, "tool_error")
		require.Len(t, f, 1, words[0])
		require.Contains(t, f[0].Description, "order_id “#W1” is the record the agent had itself changed at turn 5 with exchange_delivered_order_items, whose result left it with status “exchange requested”.")
		require.Contains(t, localetest.Chinese(t).Text(f[0].Words.Description), "order_id“#W1”正是智能体自己在第 5 轮用 exchange_delivered_order_items 修改过的记录，其结果把它的状态变成了“exchange requested”。")
		require.True(t, slices.ContainsFunc(f[0].Evidence, func(e analyzer.Evidence) bool { return e.Quote == `"status": "exchange requested"` && e.Turn == 6 }),
			"the status its result showed is quoted: %+v", f[0].Evidence)

		other := run("#W2")
		require.NotContains(t, only(other, "tool_error")[0].Description, "had itself changed", "another order's change is not this one's")
	}
}
