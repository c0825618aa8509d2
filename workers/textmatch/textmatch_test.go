package textmatch

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestFold(t *testing.T) {
	t.Parallel()
	f := Fold("Ｈｅｌｌｏ　 ＷＯＲＬＤ\n\tI’m “here”，好的。")
	require.Equal(t, `hello world i'm "here",好的.`, f.Text)
	i := strings.Index(f.Text, "world")
	start, end := f.Span(i, i+len("world"))
	require.Equal(t, "ＷＯＲＬＤ", f.Orig[start:end])
}

func TestPhraseSetFind(t *testing.T) {
	t.Parallel()
	ps := NewPhraseSet("ok", "I’m unable to", "转人工")
	cases := []struct {
		text, want string
		found      bool
	}{
		{"Please book it", "", false},
		{"OK, go ahead", "OK", true},
		{"Sure — ok.", "ok", true},
		{"Sorry, I'M  UNABLE TO do that", "I'M  UNABLE TO", true},
		{"Sorry, I'm unable to do that", "I'm unable to", true},
		{"我要转人工服务", "转人工", true},
		{"👍ok👍", "ok", true},
	}
	for _, tc := range cases {
		m, ok := ps.Find(Fold(tc.text))
		require.Equal(t, tc.found, ok, tc.text)
		if ok {
			require.Equal(t, tc.want, tc.text[m.Start:m.End], tc.text)
		}
	}
}

func TestPhraseSetFindEarliest(t *testing.T) {
	t.Parallel()
	ps := NewPhraseSet("failed", "error")
	text := "An error occurred and the call failed"
	m, ok := ps.Find(Fold(text))
	require.True(t, ok)
	require.Equal(t, "error", text[m.Start:m.End])
	require.True(t, ps.Contains(Fold(text)))
	require.False(t, ps.Contains(Fold("all good")))
}

// TestPhraseSetAll yields every match in order, each after the one before it, with the
// word boundaries of the whole text: "cannot" inside "cannotx" is not a match, and a
// phrase is found again after a match ends.
func TestPhraseSetAll(t *testing.T) {
	t.Parallel()
	ps := NewPhraseSet("cannot", "cannot be", "无法")
	text := "Cannotx. If you CANNOT   be reached, we cannot refund it; 无法退款，无法"
	var got []string
	for m := range ps.All(Fold(text)) {
		got = append(got, text[m.Start:m.End])
	}
	require.Equal(t, []string{"CANNOT   be", "cannot", "无法", "无法"}, got)
	for range ps.All(Fold(text)) {
		break // stopping early is allowed
	}
	require.Empty(t, slices.Collect(ps.All(Fold("nothing here"))))
}

func TestQuoteAround(t *testing.T) {
	t.Parallel()
	text := "First line.\nThe payment failed because the card was declined by the bank today.\nLast line."
	i := strings.Index(text, "failed")
	q := QuoteAround(text, i, i+len("failed"), 40)
	require.Contains(t, text, q)
	require.Contains(t, q, "failed")
	require.NotContains(t, q, "\n", "context stops at line breaks")
	require.LessOrEqual(t, utf8.RuneCountInString(q), 40)
	for _, w := range strings.Fields(q) {
		require.Contains(t, strings.Fields(text), w, "no partial words: %q", q)
	}

	zh := strings.Repeat("航班", 50) + "支付失败" + strings.Repeat("请稍后", 50)
	j := strings.Index(zh, "失败")
	q = QuoteAround(zh, j, j+len("失败"), 30)
	require.True(t, utf8.ValidString(q))
	require.Contains(t, zh, q)
	require.Contains(t, q, "支付失败")
	require.LessOrEqual(t, utf8.RuneCountInString(q), 30)
}

func TestClipQuoteIsAlwaysASubstring(t *testing.T) {
	t.Parallel()
	alphabet := []rune("ab c,。好的😀\n é")
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := r.IntN(80)
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(rs)
		maxRunes := 1 + r.IntN(40)
		q := ClipQuote(s, maxRunes)
		require.True(t, utf8.ValidString(q))
		require.Contains(t, s, q)
		require.LessOrEqual(t, utf8.RuneCountInString(q), maxRunes)
		if strings.TrimSpace(s) != "" {
			require.NotEmpty(t, q)
		}
	}
	require.Equal(t, "The quick brown", ClipQuote("The quick brown fox", 17))
	require.Equal(t, "我们正在", ClipQuote("我们正在处理", 4))
}

func TestSimilarity(t *testing.T) {
	t.Parallel()
	require.InDelta(t, 1.0, Similarity("Hello there", "hello   THERE"), 1e-9)
	require.InDelta(t, 0.0, Similarity("abc", "xyz"), 1e-9)
	require.Greater(t, Similarity("您的航班已经改签成功，请查收确认邮件。", "您的航班已经改签成功，请查收确认短信。"), 0.7)
	require.Less(t, Similarity("您的航班已经改签成功", "请问您要退票吗"), 0.2)
}

func TestPrefix(t *testing.T) {
	t.Parallel()
	require.Equal(t, "ab", Prefix("abc", 2))
	require.Equal(t, "用户", Prefix("用户要求", 2))
	require.Equal(t, "abc", Prefix("abc", 5))
	require.Empty(t, Prefix("abc", 0))
	require.Equal(t, "😀", Prefix("😀😀", 1), "never inside a rune")
}
