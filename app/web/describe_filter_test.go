package web

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/store"
)

// A search that would read too much of the posting lists is a problem the page shows,
// with what to change, rather than a slow page.
func TestDescribeFilterSaysASearchIsTooBroad(t *testing.T) {
	t.Parallel()
	f, form, problem := conversationFilter(map[string][]string{"q": {"the order to a you"}})
	require.Empty(t, problem)
	_, problem = describeFilter(f, form.Query, store.ConversationList{TooBroad: true})
	require.Equal(t, `The search "the order to a you" has too many words that most conversations share to list at once; leave some out, or use longer words.`, problem)
	words, problem := describeFilter(f, form.Query, store.ConversationList{})
	require.Empty(t, problem)
	require.Equal(t, []string{`Matching "the order to a you"`}, words)
}
