package htmx

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChinesePagesTakeNoSpaceBesideFullWidthPunctuation: the spaces a template puts
// between pieces go where they stand beside full-width punctuation, also across tags,
// and stay between Chinese and Latin letters or digits and in text that is not the
// page's own words; between two pieces with a Chinese character on either side they go
// too where one is set in bold, italics or a link, while a badge's or a button's space
// and a space inside one piece stay.
func TestChinesePagesTakeNoSpaceBesideFullWidthPunctuation(t *testing.T) {
	for page, want := range map[string]string{
		`<summary>排名依据： <span>没有标注结果</span></summary>`:                                                   `<summary>排名依据：<span>没有标注结果</span></summary>`,
		`优先级 <b>62.8</b> （满分 100） <span class="muted">（只在相同时决定先后）</span> = 普遍度 20.8 <span>（有多常见）</span>`: `优先级 <b>62.8</b>（满分 100）<span class="muted">（只在相同时决定先后）</span>= 普遍度 20.8<span>（有多常见）</span>`,
		`<span>未使用模型，因此没有需要修复的回答； <i>0</i> 个不可用（已排除）</span>`:                                             `<span>未使用模型，因此没有需要修复的回答；<i>0</i> 个不可用（已排除）</span>`,
		`0.83（零售）。 <a href="/x?a=1&amp;b=2">标注对话</a> ，让 Airline agent 拥有`:                                `0.83（零售）。<a href="/x?a=1&amp;b=2">标注对话</a>，让 Airline agent 拥有`,
		`风险—— 发现的每一个都已列出。 改进 表示`:                                                                         `风险——发现的每一个都已列出。改进 表示`,
		`<b>27 个对话</b> <span>—— 占 27%</span>`:                                                            `<b>27 个对话</b><span>——占 27%</span>`,
		`<blockquote lang="und">Done ; ok 。 yes</blockquote> ： <code>a ： b</code>`:                       `<blockquote lang="und">Done ; ok 。 yes</blockquote>：<code>a ： b</code>`,
		`<p lang="zh">好 。</p><div lang="en"><div>a 。</div> 。</div>`:                                      `<p lang="zh">好。</p><div lang="en"><div>a 。</div> 。</div>`,
		`<input value="a ： b"> 智能体 Airline agent — 2 个 <br> 对话`:                                          `<input value="a ： b"> 智能体 Airline agent — 2 个 <br> 对话`,
		`<b>56 个对话</b> 被标记，共筛查 <b>100 个</b> 。 标题 <i>退货 测试</i> 已保存`:                                       `<b>56 个对话</b>被标记，共筛查 <b>100 个</b>。标题<i>退货 测试</i>已保存`,
		`<span class="badge">风险</span> 表示安全 <button>删除</button> 上传`:                                      `<span class="badge">风险</span> 表示安全 <button>删除</button> 上传`,
	} {
		require.Equal(t, want, string(tightenChinese([]byte(page))), page)
	}
}
