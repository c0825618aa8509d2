package pipeline

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKeptConversationsStopAtTheBudget(t *testing.T) {
	t.Parallel()
	k := &keptConversations{bySeq: map[int32]storedConversation{}}
	k.add(storedConversation{seq: 1, size: keptBudget / 2})
	k.add(storedConversation{seq: 2, size: keptBudget / 2})
	require.Len(t, k.bySeq, 2, "up to the budget, every kept conversation is held")
	k.add(storedConversation{seq: 3, size: 1})
	require.Nil(t, k.bySeq, "past it none is: diagnosis reads them all again")
	k.add(storedConversation{seq: 4, size: 1})
	require.Nil(t, k.bySeq)
}
