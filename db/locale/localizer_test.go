package locale

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func bundle(t *testing.T) *Bundle {
	t.Helper()
	b, err := New()
	require.NoError(t, err)
	return b
}

func TestMatchReadsAcceptLanguage(t *testing.T) {
	t.Parallel()
	b := bundle(t)
	for header, want := range map[string]string{
		"":                           English,
		"zh-CN,zh;q=0.9,en;q=0.8":    Chinese,
		"zh":                         Chinese,
		"zh-Hans":                    Chinese,
		"en-GB,en;q=0.9":             English,
		"fr-FR,fr;q=0.9":             English,
		"fr-FR,zh-CN;q=0.5":          Chinese,
		"de;q=0.9,en;q=0.5,zh;q=0.4": English,
		"not a header;;;":            English,
	} {
		require.Equal(t, want, b.Match(header).Code(), "Accept-Language: %q", header)
	}
}

func TestPluralsFollowCLDR(t *testing.T) {
	t.Parallel()
	b := bundle(t)
	en, zh := b.English(), must(b.For(Chinese))
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	require.Equal(t, "1 day ago", en.Ago(now.Add(-24*time.Hour), now))
	require.Equal(t, "3 days ago", en.Ago(now.Add(-72*time.Hour), now))
	require.Equal(t, "3 天前", zh.Ago(now.Add(-72*time.Hour), now))
	require.Equal(t, "just now", en.Ago(now.Add(-time.Second), now))
	require.Equal(t, "10 Mar 2026, 12:00 UTC", en.Time(now))
	require.Equal(t, "2026年3月10日 12:00 UTC", zh.Time(now))
	require.Equal(t, "2026年3月10日 12:00 UTC", zh.Ago(now.Add(-8*24*time.Hour).AddDate(0, 0, 8), now.AddDate(0, 0, -1)))
	require.Equal(t, "3 min 5 s", en.Duration(185*time.Second))
	require.Equal(t, "3 分 5 秒", zh.Duration(185*time.Second))
}

func must(l *Localizer, ok bool) *Localizer {
	if !ok {
		panic("no such locale")
	}
	return l
}

// TestNumbersAndShares holds the locale's numbers to the product's one way of writing
// shares (whole percents from 10%, one decimal below, the bounds) and digit grouping.
func TestNumbersAndShares(t *testing.T) {
	t.Parallel()
	b := bundle(t)
	for _, l := range []*Localizer{b.English(), must(b.For(Chinese))} {
		for share, want := range map[float64]string{
			0: "0%", 13.0 / 200: "6.5%", 0.01: "1%", 0.003: "0.3%", 0.0004: "<0.1%", 0.25: "25%",
			0.0995: "10%", 0.0649999976: "6.5%", 0.996: ">99%", 1: "100%", 0.123: "12%", 0.095: "9.5%",
		} {
			require.Equal(t, want, l.Percent(share), "%s: %v", l.Code(), share)
		}
		require.Equal(t, "12,345", l.Num(12345))
		require.Equal(t, "0.72", l.Decimal(0.7234, 2))
	}
}

func TestTextRoundTripsThroughJSON(t *testing.T) {
	t.Parallel()
	b := bundle(t)
	text := Sentences(
		Msg("format.seconds_only", "S", 42),
		List(Lit("update_order"), Lit("refund"), Lit("“退款”")),
		Share(0.065),
	)
	raw, err := json.Marshal(text)
	require.NoError(t, err)
	var back Text
	require.NoError(t, json.Unmarshal(raw, &back))
	en, zh := b.English(), must(b.For(Chinese))
	require.Equal(t, "42 s update_order, refund and “退款” 6.5%", en.Text(back))
	require.Equal(t, "42 秒 update_order、refund 和“退款”6.5%", zh.Text(back))
	require.Equal(t, en.Text(text), en.Text(back))
	require.Equal(t, []string{"join.sentences", "format.seconds_only", "join.comma", "join.and"}, back.MessageIDs())

	cased := Sentences(UpperFirst(Lit("the agent")), LowerFirst(Lit("The user left.")), LowerFirst(Lit("API down.")))
	raw, err = json.Marshal(cased)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &back))
	require.Equal(t, "The agent the user left. API down.", en.Text(back))

	var lit Text
	require.NoError(t, json.Unmarshal([]byte(`"as stored"`), &lit))
	require.Equal(t, "as stored", zh.Text(lit))
	require.True(t, Text{}.IsZero())
	require.False(t, lit.IsZero())
}

func TestPluralCountOfAStoredText(t *testing.T) {
	t.Parallel()
	b := bundle(t)
	raw, err := json.Marshal(Msg("format.days_ago", "Count", 1))
	require.NoError(t, err)
	var back Text
	require.NoError(t, json.Unmarshal(raw, &back))
	require.Equal(t, "1 day ago", b.English().Text(back))
	require.Equal(t, "4 days ago", b.English().Text(Msg("format.days_ago", "Count", 4)))
}

func TestMissingMessagesShowTheirKey(t *testing.T) {
	t.Parallel()
	var none *Localizer
	require.Equal(t, "layout.footer", none.T("layout.footer"))
	require.Equal(t, "no.such.key", bundle(t).English().T("no.such.key"))
}

// TestOneStopAfterAQuote: a message that ends on a quote which ends its own sentence
// takes no second full stop, in either language; other stops stay.
func TestOneStopAfterAQuote(t *testing.T) {
	t.Parallel()
	b := bundle(t)
	en, zh := b.English(), must(b.For(Chinese))
	require.Equal(t, "The user's last words before it were “I'll go with the first option.”",
		en.T("finding.last_words_before", "Quote", "“I'll go with the first option.”"))
	require.Equal(t, "The user's last words before it were “Yes”.", en.T("finding.last_words_before", "Quote", "“Yes”"))
	require.Equal(t, "在此之前用户说的最后一句话是“好的，谢谢。”", zh.T("finding.last_words_before", "Quote", "“好的，谢谢。”"))
	require.Equal(t, "在此之前用户说的最后一句话是“确认”。", zh.T("finding.last_words_before", "Quote", "“确认”"))
	require.Equal(t, "在此之前用户说的最后一句话是“I'll go with the first option.”", zh.T("finding.last_words_before", "Quote", "“I'll go with the first option.”"),
		"an English quote in a Chinese sentence ends it too")
	require.Equal(t, "The user's last words before it were “好的，谢谢。”", en.T("finding.last_words_before", "Quote", "“好的，谢谢。”"),
		"and a Chinese quote an English one")
}
