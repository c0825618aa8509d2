package locale

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChineseSlotsAreSpacedByScript renders the catalog's own sentences with slots filled
// by Chinese words and by Latin names: in Chinese no space is left between two Chinese
// characters or beside full-width punctuation, and one stands between a Chinese
// character and a tool's name, an id or a number, whatever the catalog string wrote
// around the slot. English is written exactly as its catalog says.
func TestChineseSlotsAreSpacedByScript(t *testing.T) {
	t.Parallel()
	b := bundle(t)
	en, zh := b.English(), must(b.For(Chinese))
	ref := Msg("written.ref_turn", "ID", "airline-task00-trial1", "Turn", "18")
	theTool := Msg("written.the_tool")
	retried := Msg("finding.write_retried", "Failed", "book_reservation", "Turn", "18", "Quote", "“Error”",
		"Again", "21", "Changed", Msg("finding.another_argument", "Key", "payment_methods"), "Tool", "book_reservation")
	tools := List(Lit("book_reservation"), Lit("update_reservation_baggages"))
	for _, c := range []struct {
		text     Text
		en, zhCN string
	}{{
		text: Msg("written.test", "Ref", ref),
		en:   "Add a regression test from conversation airline-task00-trial1, turn 18: replay the conversation up to that turn and assert the corrected behavior.",
		zhCN: "根据对话 airline-task00-trial1 第 18 轮添加一个回归测试：把对话回放到那一轮，断言行为已被纠正。",
	}, {
		text: Msg("playbook.unapplied_claim.step2", "Tools", theTool),
		en:   "Check the tool itself: its result must show what it stored. If it applies the field but returns the old value, fix the result; if it cannot apply the field, make it fail with an error instead of returning the unchanged record as a success.",
		zhCN: "检查该工具本身：它的结果必须反映实际保存的内容。如果它应用了该字段却返回旧值，就修正结果；如果它无法应用该字段，就让它返回错误，而不是把未改变的记录当作成功返回。",
	}, {
		text: Msg("playbook.unapplied_claim.step2", "Tools", "update_reservation_flights"),
		en:   "Check update_reservation_flights itself: its result must show what it stored. If it applies the field but returns the old value, fix the result; if it cannot apply the field, make it fail with an error instead of returning the unchanged record as a success.",
		zhCN: "检查 update_reservation_flights 本身：它的结果必须反映实际保存的内容。如果它应用了该字段却返回旧值，就修正结果；如果它无法应用该字段，就让它返回错误，而不是把未改变的记录当作成功返回。",
	}, {
		text: retried,
		en:   "After book_reservation failed at turn 18 (“Error”), the agent called book_reservation again at turn 21 with a different payment_methods argument, without asking the user.",
		zhCN: "book_reservation 在第 18 轮失败（“Error”）之后，智能体没有询问用户，就在第 21 轮再次调用了 book_reservation，换了一个 payment_methods 参数。",
	}, {
		text: tools,
		en:   "book_reservation and update_reservation_baggages",
		zhCN: "book_reservation 和 update_reservation_baggages",
	}, {
		text: List(Msg("written.the_tool"), Lit("book_reservation"), Msg("written.the_tool")),
		en:   "the tool, book_reservation and the tool",
		zhCN: "该工具、book_reservation 和该工具",
	}} {
		require.Equal(t, c.en, en.Text(c.text))
		require.Equal(t, c.zhCN, zh.Text(c.text))
	}
}

// TestSpacingKeepsWhatItDoesNotJudge: a slot beside a newline, a Latin punctuation
// mark or another Latin run keeps the catalog's spacing, an empty value leaves its
// {{if}} false, and a value that looks like a slot marker is written as it is.
func TestSpacingKeepsWhatItDoesNotJudge(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		rendered string
		values   []string
		want     string
	}{
		{"说 " + slot(0) + " 了", []string{"(x)"}, "说 (x) 了"},
		{"a " + slot(0) + " b", []string{"c"}, "a c b"},
		{"行\n" + slot(0) + "\n行", []string{"x"}, "行\nx\n行"},
		{slot(0) + slot(1), []string{"第一句。", "Second"}, "第一句。Second"},
		{slot(0) + "  " + slot(1), []string{"中", "文"}, "中文"},
		{"见 " + slot(0), []string{"\uFDD07\uFDD1"}, "见 \uFDD07\uFDD1"},
		{"残 \uFDD09", []string{"x"}, "残 \uFDD09"},
	} {
		require.Equal(t, c.want, fillSlots(c.rendered, c.values), "%q", c.rendered)
	}
	zh := must(bundle(t).For(Chinese))
	require.Equal(t, "数字", zh.T("json_type.number", "Value", ""))
	require.Equal(t, "数字 3", zh.T("json_type.number", "Value", "3"))
}

// TestChineseTemplatesTestSlotsOnlyForEmptiness: a Chinese message is rendered with
// markers in its slots (spacing.go), so it may ask whether a slot is empty but not
// compare its value.
func TestChineseTemplatesTestSlotsOnlyForEmptiness(t *testing.T) {
	t.Parallel()
	for id, m := range messageFile(t, Chinese) {
		for _, s := range forms(m) {
			for _, word := range []string{"eq ", "ne ", "lt ", "gt ", "le ", "ge ", "printf", "len "} {
				require.False(t, strings.Contains(s, "{{"+word) || strings.Contains(s, "{{ "+word) || strings.Contains(s, "{{if "+word),
					"%s compares a slot's value (%q), which Chinese rendering cannot", id, word)
			}
		}
	}
}

// TestQuotesInsideQuotesAreSingle: in Chinese a value the message puts inside its
// own “” has its quotes written ‘’, a value outside them keeps “”, and one whose
// quotes do not pair up is left as it is.
func TestQuotesInsideQuotesAreSingle(t *testing.T) {
	t.Parallel()
	zh := must(bundle(t).For(Chinese))
	require.Equal(t, "已把“不经‘确认’就修改”标记为预期行为，在这里和这个智能体之后的诊断中都是如此",
		zh.T("review.marked", "Title", "不经“确认”就修改", "Ranks", ""))
	require.Equal(t, "已把“不经“确认就修改”标记为预期行为，在这里和这个智能体之后的诊断中都是如此",
		zh.T("review.marked", "Title", "不经“确认就修改", "Ranks", ""), "an unpaired quote is left")
	require.Equal(t, "错误：工具说“失败”", zh.T("md.error", "Error", "工具说“失败”"), "outside the message's quotes")
	require.Contains(t, zh.T("playbook.unconfirmed_write.step1", "Tools", "book_reservation"), "只在得到明确的‘是’之后才执行。”")
}
