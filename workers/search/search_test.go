package search_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/search"
	"github.com/checkup-dev/checkup/workers/transcript"
	"github.com/checkup-dev/checkup/workers/transcript/transcripttest"
)

func TestTermsIndexWordsToolsAndChinese(t *testing.T) {
	t.Parallel()
	c := transcript.Conversation{Messages: []transcript.Message{
		{Role: transcript.RoleUser, Content: "I want Refunds for order 4242, 我要申请退款"},
		{Role: transcript.RoleAssistant, Content: "Checking.", ToolCalls: []transcript.ToolCall{{Name: "get_order_details"}}},
		{Role: transcript.RoleTool, Name: "get_order_details", Content: `{"error": "not found"}`},
		{Role: transcript.RoleUser, Content: "bad " + strings.Repeat("x", 60)},
	}}
	terms := search.NewIndexer().Terms(c)
	for _, want := range []string{"refund", "order", "4242", "get", "detail", "error", "found", "申请", "请退", "退款", "退", "款", "我"} {
		require.Contains(t, terms, want)
	}
	require.NotContains(t, terms, "refunds", "English words are stemmed")
	require.NotContains(t, terms, strings.Repeat("x", 60), "runs longer than a word are not indexed")
	require.Len(t, terms, len(slices.Compact(slices.Sorted(slices.Values(terms)))), "distinct")
}

func TestAnIndexerGivesEveryConversationItsOwnTerms(t *testing.T) {
	t.Parallel()
	convs := append(transcripttest.Sample(t)[:20], transcript.Conversation{Messages: []transcript.Message{
		{Role: transcript.RoleUser, Content: "我要申请退款, refunds please"},
		{Role: transcript.RoleAssistant, Content: "申请退款 refunded"},
	}})
	shared := search.NewIndexer()
	for round := range 2 { // the second round finds every word remembered
		for i, c := range convs {
			require.Equal(t, search.NewIndexer().Terms(c), shared.Terms(c), "round %d, conversation %d", round, i)
		}
	}
}

func TestQuery(t *testing.T) {
	t.Parallel()
	word := func(w string) search.Term { return search.Term{Text: w, Prefix: true} }
	chinese := func(w string) search.Term { return search.Term{Text: w} }
	for _, c := range []struct {
		in   string
		want []search.Term
	}{
		{"refunds", []search.Term{word("refund")}},
		{"Refund  order", []search.Term{word("refund"), word("order")}},
		{"退款", []search.Term{chinese("退款")}},
		{"转人工", []search.Term{chinese("转人"), chinese("人工")}},
		{"退", []search.Term{chinese("退")}},
		{"get_order_details", []search.Term{word("get"), word("order"), word("detail")}},
		{"order order", []search.Term{word("order")}},
		{"it's", []search.Term{{Text: "it"}}},
		{"No refunds", []search.Term{{Text: "no"}, word("refund")}},
		{"!!! ??", nil},
		{"", nil},
	} {
		require.Equal(t, c.want, search.Query(c.in), c.in)
	}
}

func TestPostingsListEachTermsConversations(t *testing.T) {
	t.Parallel()
	p := search.NewPostings()
	require.Zero(t, p.Terms())
	p.Add(3, []string{"refund", "order"})
	p.Add(4, nil)
	p.Add(7, []string{"order", "退款"})
	p.Add(9, []string{"refund"})
	require.Equal(t, int32(3), p.First())
	require.Equal(t, 4, p.Terms())
	terms, counts, seqs := p.Lists()
	require.Equal(t, []string{"", "order", "refund", "退款"}, terms, "the empty term lists every conversation")
	require.Equal(t, []int32{4, 2, 2, 1}, counts)
	require.Equal(t, []int32{3, 4, 7, 9, 3, 7, 3, 9, 7}, seqs)
}
