package web_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"
)

// spaceBesideFullWidth is a space next to full-width punctuation, which Chinese text
// never takes.
var spaceBesideFullWidth = regexp.MustCompile(`.{0,12}(?: [（）：；，。、“”]|[（）：；，。、“”] | ——|—— ).{0,12}`)

// visibleChinese is the text a reader sees on page in the page's own words: runs of
// white space read as one space, as a browser shows them, and a quote in its own
// language or code, which keep their spacing, stand as one Latin letter.
func visibleChinese(t *testing.T, page string) string {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	require.NoError(t, err)
	doc.Find("script, style, title, template").Remove()
	doc.Find(`code, pre, textarea, body [lang]:not([lang^="zh"])`).ReplaceWithHtml("X")
	return strings.Join(strings.Fields(doc.Find("body").Text()), " ")
}

// TestTheChineseTaskPageTakesNoSpaceBesideFullWidthPunctuation reads a finished
// diagnosis in Chinese: the pieces its templates join (a label and its value, a score
// and its note) meet full-width punctuation without a space, the explainer names the
// badges by their Chinese words, and the ranking formula is explained in Chinese.
func TestTheChineseTaskPageTakesNoSpaceBesideFullWidthPunctuation(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	id := b.upload(t, b.alice, "Airline, unlabelled", "Airline agent", unlabelledAirline(t))
	task := "/tasks/" + id.String()

	zh := readIn(t, b.alice.browser, task, "zh-CN")
	text := visibleChinese(t, zh)
	require.Contains(t, text, "排名依据：没有标注结果")
	require.Empty(t, spaceBesideFullWidth.FindAllString(text, -1))
	require.Contains(t, text, "风险表示安全、隐私或合规风险——", "the bold term and its meaning, no space between")
	require.Regexp(t, `\d+ 个对话被标记，共筛查`, text, "no space between two pieces of Chinese words")
	require.Contains(t, text, "改进表示可以让智能体做得更好的地方——")
	require.NotContains(t, text, "RISK")
	require.NotContains(t, text, "ACTION")
	require.Contains(t, text, "公式：排名 = 至少能解释的失败数")
	require.NotContains(t, text, "failures explained")
	require.Contains(t, text, "修复位置：系统提示词")
	require.NotContains(t, text, "谎报")

	conv := readIn(t, b.alice.browser, task+"/conversations?sort=to_label", "zh-CN")
	require.Contains(t, visibleChinese(t, conv), "Airline agent 的检测器需要的标签：已有失败 0/10、成功 0/10。")

	en := visibleChinese(t, readIn(t, b.alice.browser, task, "en"))
	require.Contains(t, en, "Rank: No outcomes are labeled", "English keeps the space between its pieces")
	require.Contains(t, en, "RISK marks a safety, privacy or compliance risk —")
}
