package search_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
	"github.com/checkup-dev/checkup/workers/search"
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
	for _, want := range []string{"refund", "order", "4242", "get", "detail", "get_order_details", "order_details", "_names", "error", "found", "申请", "请退", "退款", "退", "款", "我"} {
		require.Contains(t, terms, want)
	}
	require.NotContains(t, terms, "refunds", "English words are stemmed")
	require.NotContains(t, terms, strings.Repeat("x", 60), "runs longer than a word are not indexed")
	require.IsIncreasing(t, terms, "sorted and distinct")
}

// A name's tails are terms down to the last one still joined, after any run of
// underscores, and a name too long to be a term is still found by its tails and words.
func TestNamesAreIndexedByTheirTails(t *testing.T) {
	t.Parallel()
	long := "mcp__travel_service__get_customer_reservation_details"
	terms := search.NewIndexer().Terms(transcript.Conversation{Messages: []transcript.Message{
		{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{{Name: long}}},
	}})
	for _, want := range []string{"get_customer_reservation_details",
		"customer_reservation_details", "reservation_details", "mcp", "travel", "reserv"} {
		require.Contains(t, terms, want)
	}
	require.NotContains(t, terms, long, "longer than a term")
	for _, term := range terms {
		require.False(t, strings.HasPrefix(term, "_") && term != search.NamesTerm, "%q starts with an underscore", term)
	}
	require.Equal(t, `'mcp':* & 'travel':* & 'servic':* & 'get':* & 'custom':* & 'reserv':* & 'detail':*`, search.Query(long, true),
		"a name too long to be a term is looked for by its words")
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

// A search of documents stored before names were indexed whole looks for a name by its
// words, as those documents hold it.
func TestQueryOfDocumentsWithoutNames(t *testing.T) {
	t.Parallel()
	require.Equal(t, `'get':* & 'order':* & 'detail':* & 'refund':*`, search.Query("get_order_details refund", false))
	require.True(t, search.HasNames("the get_order_details call"))
	require.False(t, search.HasNames("_private_ refunds"))
}

func TestQuery(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"refunds", `'refund':*`},
		{"Refund  order", `'refund':* & 'order':*`},
		{"退款", `'退款'`},
		{"转人工", `'转人' & '人工'`},
		{"退", `'退'`},
		{"get_order_details", `'get_order_details':*`},
		{"Get_Order refund", `'get_order':* & 'refund':*`},
		{"_private_ x", `'privat':* & 'x':*`},
		{"ab_ab_ab", `'ab_ab_ab':*`},
		{"order_id: İ", `'order_id':* & 'i':*`},
		{"order order", `'order':*`},
		{"it's", `'it':*`},
		{"!!! ??", ``},
		{"", ``},
	} {
		require.Equal(t, c.want, search.Query(c.in, true), c.in)
	}
}
