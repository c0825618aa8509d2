package offline

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// messageID is a catalog key left in a written text: a message the catalog lacks.
var messageID = regexp.MustCompile(`\b(rule|finding|written|playbook|pii|join)\.[a-z_]+`)

// han is a Chinese character.
var han = regexp.MustCompile(`\p{Han}`)

// requireReads checks a text the analyzer keeps by key: in English it is the words the
// run stored (english), and in Chinese it is Chinese, every message found.
func requireReads(t *testing.T, en, zh *locale.Localizer, english string, words locale.Text, what string) {
	t.Helper()
	require.False(t, words.IsZero(), "%s is kept by key", what)
	require.Equal(t, english, en.Text(words), "%s: the English is the message's", what)
	written := zh.Text(words)
	require.NotRegexp(t, messageID, written, "%s: a message the Chinese catalog lacks", what)
	require.Regexp(t, han, written, "%s reads in Chinese: %s", what, written)
	require.NotEqual(t, english, written, what)
}

// TestFindingsAndActionsReadInBothLanguages diagnoses the 100 sample conversations and
// writes the Action of every cluster their findings make: every title, description,
// step and impact is kept by key, reads as the stored English for an English reader
// and in Chinese for a Chinese one, and the quotes stay as the conversation said them.
func TestFindingsAndActionsReadInBothLanguages(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	en, zh := localetest.English(t), localetest.Chinese(t)
	rules := map[string]analyzer.Finding{}
	for _, s := range loadSample(t) {
		r, err := a.Diagnose(context.Background(), s.conv)
		require.NoError(t, err)
		require.NotNil(t, r.Value.SummaryWords)
		requireReads(t, en, zh, r.Value.Summary, *r.Value.SummaryWords, "summary")
		for _, f := range r.Value.Findings {
			require.NotNil(t, f.Words, f.Title)
			requireReads(t, en, zh, f.Title, f.Words.Title, "title")
			if utf8.RuneCountInString(f.Description) < maxDescription {
				requireReads(t, en, zh, f.Description, f.Words.Description, f.Title)
			}
			// A finding past the diagnosis's cited turns has no quote (capCitations).
			if _, ok := rules[f.Title]; !ok && len(f.Evidence) > 0 {
				rules[f.Title] = f
			}
		}
	}
	require.Greater(t, len(rules), 10, "most rules found something")
	for title, f := range rules {
		if f.Expected {
			continue
		}
		b := analyzer.ClusterBrief{Type: f.Type, Category: f.Category, Title: title, TitleText: f.Words.Title,
			Descriptions: []string{f.Description}, DescriptionTexts: []locale.Text{f.Words.Description},
			ConversationCount: 12, AnalysedCount: 100,
			Examples: []analyzer.Example{{ConversationID: "airline-7", Seq: 7, Turn: f.Evidence[0].Turn, Quote: f.Evidence[0].Quote}}}
		r, err := a.WriteAction(context.Background(), b)
		require.NoError(t, err)
		act := r.Value
		require.NotNil(t, act.Words, title)
		requireReads(t, en, zh, act.Title, act.Words.Title, "Action title")
		requireReads(t, en, zh, act.ExpectedImpact, act.Words.ExpectedImpact, "impact of "+act.Title)
		require.Len(t, act.Words.Recommendation, len(act.Recommendation))
		for i, step := range act.Recommendation {
			requireReads(t, en, zh, step, act.Words.Recommendation[i], "step of "+act.Title)
		}
		problem := zh.Text(act.Words.Problem)
		require.Regexp(t, han, problem)
		require.NotRegexp(t, messageID, problem)
		require.Contains(t, problem, quoted(f.Evidence[0].Quote), "the example is quoted as it was said")
	}
}

// TestChineseChatReadsInChinese: a Chinese conversation's finding reads in Chinese with
// the user's and the tool's words quoted verbatim, and in English for an English reader.
func TestChineseChatReadsInChinese(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	d := diagnose(t, a, sys("你是网店的客服助手。修改订单前必须得到用户明确同意。"), u("帮我把订单改成次日达"), as("好的，马上为您修改。"),
		toolCall("c1", "update_order", `{"shipping":"next_day"}`), res("c1", "Error: 订单已发货，无法修改"),
		as("已经为您修改成功！"), u("好的谢谢"))
	f := only(d, "false_success_claim")
	require.Len(t, f, 1)
	zh, en := localetest.Chinese(t), localetest.English(t)
	require.Equal(t, "工具调用失败后，智能体仍声称成功", zh.Text(f[0].Words.Title))
	require.Equal(t, "update_order 在第 5 轮失败（“Error: 订单已发货，无法修改”），但智能体在第 6 轮告诉用户已经成功。",
		zh.Text(f[0].Words.Description))
	require.Equal(t, "update_order failed at turn 5 (“Error: 订单已发货，无法修改”), yet at turn 6 the agent told the user it had succeeded.",
		en.Text(f[0].Words.Description))
	require.Equal(t, f[0].Description, en.Text(f[0].Words.Description))
}

// A description too long to keep whole leaves out its last sentences, never cuts one:
// the English and the message say the same.
func TestDescriptionsEndOnAWholeSentence(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	v := &view{en: a.en}
	long := locale.Lit(strings.Repeat("word ", maxDescription/5) + "end.")
	require.Equal(t, a.en.Text(long), a.en.Text(v.fit(long, locale.Lit("More."))), "the last sentence left out")
	require.Equal(t, "One. Two.", a.en.Text(v.fit(locale.Lit("One."), locale.Lit("Two."))))
	require.Equal(t, a.en.Text(long)+"x", a.en.Text(v.fit(locale.Lit(a.en.Text(long)+"x"))), "the first is kept even when too long")
}
