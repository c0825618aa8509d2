package offline

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// TestARejectionOfARecordTheAgentChangedSaysSo: when the tool turns a call down for a
// record the agent had itself changed earlier in the conversation, moving its status,
// the finding says which change and the status it moved from and to, in either
// language, and quotes the status its result wrote; a rejection of another record, or
// after a change that left the status as it was or failed, says nothing of the kind.
func TestARejectionOfARecordTheAgentChangedSaysSo(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	for _, words := range [][4]string{
		{"Exchange the lamp of #W1, then return the mouse.", "Exchange the lamp for the blue one, then return the mouse. Proceed?", "Yes", "The return failed: the order is no longer delivered."},
		{"把 #W1 的台灯换货，然后退掉鼠标。", "把台灯换成蓝色的，然后退掉鼠标。要继续吗？", "是的", "退货失败了：这个订单已经不是已送达状态。"},
	} {
		// The agent reads order #W1, changes order `changed` (its result: `result`),
		// then tries to return an item of #W1.
		run := func(changed, result string) analyzer.Finding {
			d := diagnose(t, a, sys(shopPolicy), u(words[0]),
				toolCall("c0", "get_order_details", `{"order_id":"#W1"}`), res("c0", `{"order_id": "#W1", "status": "delivered", "items": []}`),
				as(words[1]), u(words[2]),
				toolCall("c1", "exchange_delivered_order_items", `{"order_id":"`+changed+`","product_id":"lamp_7","item_ids":["1"],"new_item_ids":["2"],"payment_method_id":"paypal_1"}`),
				res("c1", result),
				toolCall("c2", "return_delivered_order_items", `{"order_id":"#W1","product_id":"lamp_7","item_ids":["3"],"payment_method_id":"paypal_1"}`),
				res("c2", "Error: non-delivered order cannot be returned"),
				as(words[3]), u("OK"))
			f := only(d, "tool_error")
			require.Len(t, f, 1, words[0])
			return f[0]
		}
		// Its result lists the items, each with a status of its own, before the order's.
		f := run("#W1", `{"order_id": "#W1", "items": [{"item_id": "1", "status": "delivered"}], "status": "exchange requested"}`)
		require.Contains(t, f.Description, "order_id “#W1” is the record the agent had itself changed at turn 7 with exchange_delivered_order_items, whose result moved its status from “delivered” to “exchange requested”.")
		require.Contains(t, localetest.Chinese(t).Text(f.Words.Description), "order_id“#W1”正是智能体自己在第 7 轮用 exchange_delivered_order_items 修改过的记录，其结果把它的状态由“delivered”改成了“exchange requested”。")
		require.True(t, slices.ContainsFunc(f.Evidence, func(e analyzer.Evidence) bool { return e.Quote == `"status": "exchange requested"` && e.Turn == 8 }),
			"the order's status as its result wrote it is quoted: %+v", f.Evidence)

		for _, other := range []struct{ changed, result, why string }{
			{"#W2", `{"order_id": "#W2", "status": "exchange requested"}`, "another order, though the product is the same"},
			{"#W1", `{"order_id": "#W1", "status": "delivered"}`, "a change that left the status as it was"},
			{"#W1", "Error: item 1 cannot be exchanged", "a change that failed"},
		} {
			require.NotContains(t, run(other.changed, other.result).Description, "had itself changed", other.why)
		}
	}
}
